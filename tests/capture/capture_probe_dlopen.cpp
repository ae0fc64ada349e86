// capture_probe_dlopen LIBGGML_CPU: loads ggml as Python's ctypes does (dlopen with
// RTLD_LOCAL, so nothing of it is in the global scope where RTLD_NEXT looks), and allocates
// the seed graph through ggml_backend_sched, whose calls into the graph allocator are the
// ones the capture sees. Exits 0 when the scheduler allocated the graph.
#include <ggml-backend.h>
#include <ggml-cpu.h>
#include <ggml.h>

#include <dlfcn.h>

#include <cstdio>

namespace {

void* library = nullptr;

// The function `name` of the dlopen'ed library, typed as ggml declares it.
template <class Function>
Function* load(const char* name) {
    void* symbol = dlsym(library, name);
    if (symbol == nullptr) {
        std::fprintf(stderr, "capture_probe_dlopen: %s not found\n", name);
    }
    return reinterpret_cast<Function*>(symbol);
}
#define GGML(name) load<decltype(name)>(#name)

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: capture_probe_dlopen LIBGGML_CPU\n");
        return 1;
    }
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

    ggml_backend_t cpu = GGML(ggml_backend_cpu_init)();
    ggml_backend_sched_t sched = GGML(ggml_backend_sched_new)(&cpu, nullptr, 1, GGML_DEFAULT_GRAPH_SIZE, false, false);
    const bool allocated = GGML(ggml_backend_sched_alloc_graph)(sched, graph);
    GGML(ggml_backend_sched_free)(sched);
    GGML(ggml_backend_free)(cpu);
    GGML(ggml_free)(ctx);
    return allocated ? 0 : 1;
}
