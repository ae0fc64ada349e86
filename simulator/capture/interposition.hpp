#pragma once
// How a program's calls reach the capture library, and who made them.
//
// A preloaded library interposes calls that go through the dynamic linker's global lookup
// (a program linked with ggml, and ggml's own calls between its functions). Python's ctypes
// and plugins instead look functions up with dlsym on ggml's own handle, which never sees a
// preloaded library: so the library also interposes dlsym and answers a look-up of a
// recorded ggml function with its own.

namespace gallocsim::capture {

// The capture's own function for `symbol` when it records that ggml function, else nullptr.
void* capture_function(const char* symbol);

// What dlsym does in the capture library: glibc's answer, except that a look-up of a
// recorded function of the program's ggml gets the capture's function. RTLD_NEXT is
// searched after `caller` (glibc would search after this library if it forwarded the call).
void* interposed_dlsym(void* handle, const char* symbol, const void* caller);

// The exported graph allocator function whose code `address` lies in ("ggml_gallocr_alloc_graph"),
// or nullptr: a call made from there is nested in another allocator call.
const char* enclosing_allocator_function(const void* address);

} // namespace gallocsim::capture
