// capture_probe_dlopen LIBGGML_CPU [MODE]: loads ggml as Python's ctypes does (dlopen with
// RTLD_LOCAL, so nothing of it is in the global scope where RTLD_NEXT looks), builds the seed
// graph and allocates it:
//   sched   (default) through ggml_backend_sched, whose calls into the graph allocator are
//           ggml's own (through the PLT)
//   direct  itself: ggml_gallocr_new, _reserve and _alloc_graph looked up with dlsym on ggml's
//           handle, as ctypes looks them up
//   hidden  as direct, but alloc_graph (on an allocator never reserved, so it plans by itself)
//           is looked up with glibc's own dlsym, which the capture does not answer: a call the
//           capture cannot see, whose nested reserve it must not take for the program's
// Exits 0 when the graph was allocated.
#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml-cpu.h>
#include <ggml.h>

#include <dlfcn.h>

#include <cstdio>
#include <string_view>

namespace {

void* library = nullptr;

using Dlsym = void* (*)(void*, const char*);
Dlsym lookup = dlsym;  // hidden: glibc's own, past any interposed dlsym

// The function `name` of the dlopen'ed library, typed as ggml declares it.
template <class Function>
Function* load(const char* name) {
    void* symbol = lookup(library, name);
    if (symbol == nullptr) {
        std::fprintf(stderr, "capture_probe_dlopen: %s not found\n", name);
    }
    return reinterpret_cast<Function*>(symbol);
}
#define GGML(name) load<decltype(name)>(#name)

} // namespace

int main(int argc, char** argv) {
    if (argc != 2 && argc != 3) {
        std::fprintf(stderr, "usage: capture_probe_dlopen LIBGGML_CPU [sched|direct|hidden]\n");
        return 1;
    }
    const std::string_view mode = argc == 3 ? argv[2] : "sched";
    library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        std::fprintf(stderr, "capture_probe_dlopen: %s\n", dlerror());
        return 1;
    }
    if (dlsym(RTLD_DEFAULT, "ggml_nbytes") != nullptr) {
        std::fprintf(stderr, "capture_probe_dlopen: ggml is in the global scope; the test would prove nothing\n");
        return 1;
    }
    ggml_init_params params{/*mem_size=*/1 << 20, /*mem_buffer=*/nullptr, /*no_alloc=*/true};
    ggml_context* ctx = GGML(ggml_init)(params);
    auto input = [&](const char* name) {
        ggml_tensor* t = GGML(ggml_new_tensor_1d)(ctx, GGML_TYPE_F32, 1);
        GGML(ggml_set_name)(t, name);
        GGML(ggml_set_input)(t);
        return t;
    };
    ggml_tensor* mul = GGML(ggml_mul)(ctx, input("a"), input("b"));
    GGML(ggml_set_name)(mul, "mul");
    GGML(ggml_set_output)(mul);
    ggml_cgraph* graph = GGML(ggml_new_graph)(ctx);
    GGML(ggml_build_forward_expand)(graph, mul);

    bool allocated = false;
    if (mode == "sched") {
        ggml_backend_t cpu = GGML(ggml_backend_cpu_init)();
        ggml_backend_sched_t sched = GGML(ggml_backend_sched_new)(&cpu, nullptr, 1, GGML_DEFAULT_GRAPH_SIZE, false, false);
        allocated = GGML(ggml_backend_sched_alloc_graph)(sched, graph);
        GGML(ggml_backend_sched_free)(sched);
        GGML(ggml_backend_free)(cpu);
    } else {
        ggml_gallocr_t galloc = GGML(ggml_gallocr_new)(GGML(ggml_backend_cpu_buffer_type)());
        if (mode == "direct") {
            allocated = GGML(ggml_gallocr_reserve)(galloc, graph) && GGML(ggml_gallocr_alloc_graph)(galloc, graph);
        } else {
            // libc's dlsym, asked of libc itself: the capture answers only for ggml's functions.
            lookup = reinterpret_cast<Dlsym>(dlsym(dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY), "dlsym"));
            allocated = lookup != nullptr && GGML(ggml_gallocr_alloc_graph)(galloc, graph);
            lookup = dlsym;
        }
        GGML(ggml_gallocr_free)(galloc);
    }
    GGML(ggml_free)(ctx);
    return allocated ? 0 : 1;
}
