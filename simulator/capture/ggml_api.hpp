#pragma once
// The program's own ggml: every ggml function the capture library calls, looked up at run
// time in the loaded object that defines the graph allocator, and the layout of its tensors
// and graphs. The library links no ggml, so it works whichever ggml the program loaded, of
// whichever version it supports, and however it loaded it.

#include "simulator/capture/ggml_layout.h"

#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml.h>

#include <string>
#include <vector>

namespace gallocsim::capture {

// Functions every supported ggml has (since 2024-01); their types come from the headers the
// library was built against, whose signatures of these never changed.
#define GALLOCSIM_GGML_FUNCTIONS(X)                                                                       \
    X(ggml_gallocr_new) X(ggml_gallocr_new_n) X(ggml_gallocr_free) X(ggml_gallocr_reserve)               \
    X(ggml_gallocr_reserve_n) X(ggml_gallocr_alloc_graph) X(ggml_gallocr_get_buffer_size)                \
    X(ggml_backend_buft_alloc_buffer) X(ggml_backend_buffer_free) X(ggml_backend_buft_name)             \
    X(ggml_backend_buft_get_alignment) X(ggml_backend_buft_get_max_size)                                 \
    X(ggml_backend_buft_get_alloc_size) X(ggml_backend_buffer_get_base) X(ggml_backend_buffer_get_size)  \
    X(ggml_backend_buffer_get_type) X(ggml_nbytes) X(ggml_op_name) X(ggml_type_name) X(ggml_type_size)   \
    X(ggml_blck_size) X(ggml_is_quantized) X(ggml_row_size) X(ggml_tensor_overhead) X(ggml_get_name)

// Functions that only some versions have: the capture works without them.
#define GALLOCSIM_GGML_OPTIONAL_FUNCTIONS(X) \
    X(ggml_gallocr_reserve_n_size) X(ggml_version) X(ggml_commit) X(ggml_graph_n_nodes)

struct GgmlApi {
#define GALLOCSIM_DECLARE(name) decltype(&::name) name = nullptr;
    GALLOCSIM_GGML_FUNCTIONS(GALLOCSIM_DECLARE)
    GALLOCSIM_GGML_OPTIONAL_FUNCTIONS(GALLOCSIM_DECLARE)
#undef GALLOCSIM_DECLARE

    std::string library;               // the object that defines the graph allocator
    std::vector<std::string> missing;  // functions of GALLOCSIM_GGML_FUNCTIONS it lacks
    // The layout of its ggml_tensor and ggml_cgraph, among those the library was built
    // for; nullptr when none fits (then `layout_problem` says why).
    const gallocsim_ggml_layout* layout = nullptr;
    std::size_t max_name = 0;  // the program's GGML_MAX_NAME (a build option: 64 unless set)
    std::string layout_problem;
    // For each of reference/version_map.hpp's kMarkerFunctions, whether the library exports it.
    std::vector<bool> markers;

    // Whether calls can be recorded: every function found and a layout that fits.
    bool usable() const { return missing.empty() && layout != nullptr; }
    // Why not, in one sentence ("the program's ggml lacks ggml_backend_buft_name, …").
    std::string unusable_reason() const;
};

// The program's ggml, found on first use: first the objects after this library in the global
// lookup order (dlsym RTLD_NEXT), then every loaded object, because a library dlopen'ed with
// RTLD_LOCAL (Python's ctypes) is invisible to RTLD_NEXT. nullptr when no loaded object
// but this library defines the graph allocator. Resolved once (a thread-safe static).
const GgmlApi* program_ggml();

// The path of a loaded object other than this library that defines the graph allocator,
// or empty: asked at exit, to tell a program that never loaded ggml from one whose calls
// never reached the capture.
std::string loaded_ggml_library();

// Where no loaded object exports the graph allocator: the path of one whose file holds its
// code anyway (ggml linked in statically with hidden symbols: the names ggml-alloc.c's
// messages carry, "ggml_gallocr_…", are in it), or empty. Asked at exit only: it reads files.
std::string library_with_hidden_ggml();

// glibc's own dlsym: this library interposes dlsym (capture.cpp), and its own look-ups
// must not go through that.
void* real_dlsym(void* handle, const char* symbol);

} // namespace gallocsim::capture
