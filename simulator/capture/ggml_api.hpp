#pragma once
// The program's own ggml: every ggml function the capture library calls, looked up at run
// time in the loaded object that defines the graph allocator. The library links no ggml,
// so it works whichever libggml-base the program loaded, and however it loaded it.

#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml.h>

namespace gallocsim::capture {

// Each entry names a public ggml function; its type comes from the user's headers.
#define GALLOCSIM_GGML_FUNCTIONS(X)                                                                       \
    X(ggml_gallocr_new) X(ggml_gallocr_new_n) X(ggml_gallocr_free) X(ggml_gallocr_reserve)               \
    X(ggml_gallocr_reserve_n) X(ggml_gallocr_reserve_n_size) X(ggml_gallocr_alloc_graph)                 \
    X(ggml_gallocr_get_buffer_size) X(ggml_backend_buft_alloc_buffer) X(ggml_backend_buffer_free)        \
    X(ggml_backend_buft_name) X(ggml_backend_buft_get_alignment) X(ggml_backend_buft_get_max_size)       \
    X(ggml_backend_buft_get_alloc_size) X(ggml_backend_buffer_get_base) X(ggml_backend_buffer_get_size)  \
    X(ggml_backend_buffer_get_type) X(ggml_graph_n_nodes) X(ggml_graph_node) X(ggml_nbytes)              \
    X(ggml_op_name) X(ggml_type_name) X(ggml_type_size) X(ggml_blck_size) X(ggml_is_quantized)           \
    X(ggml_row_size)

struct GgmlApi {
#define GALLOCSIM_DECLARE(name) decltype(&::name) name = nullptr;
    GALLOCSIM_GGML_FUNCTIONS(GALLOCSIM_DECLARE)
#undef GALLOCSIM_DECLARE
    // Optional: older ggml has neither.
    const char* (*ggml_version)() = nullptr;
    const char* (*ggml_commit)() = nullptr;
    // Every function above was found (a ggml too old for one is forwarded to, never recorded).
    bool complete = false;
};

// The program's ggml, found on first use: first the objects after this library in the global
// lookup order (dlsym RTLD_NEXT), then every loaded object, because a library dlopen'ed with
// RTLD_LOCAL (Python's ctypes) is invisible to RTLD_NEXT. nullptr when no loaded object
// but this library defines the graph allocator. Resolved once (a thread-safe static).
const GgmlApi* program_ggml();

} // namespace gallocsim::capture
