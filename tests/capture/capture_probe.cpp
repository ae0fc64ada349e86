// capture_probe: a tiny ggml program (linked against the real libggml-base) whose graph
// allocator calls the capture tests record. `capture_probe MODE [EXIT_CODE]`:
//   seed    a, b inputs (1x1 f32), mul = a*b output; ggml_gallocr_new, reserve, alloc_graph
//   names   two tensors named "x", one unnamed, one named " (copy)"; reserve, alloc_graph
//   replan  ggml_gallocr_new, alloc_graph with no reserve (it plans by itself), alloc_graph again
//   measure two buffer ids of the CPU type; reserve_n, reserve_n_size of a larger graph (which
//           frees the chunk it would outgrow), reserve_n and alloc_graph of that graph
//   threads four threads, each with its own allocator, 25 reserve + alloc_graph each
//   rules   buffer types of the probe's own whose get_alloc_size follows ggml-cuda's rule
//           (PADDED) and no rule the format names (ODD); reserve_n only
//   none    builds a graph but never calls the graph allocator
// and exits with EXIT_CODE (default 0), or 1 if a call fails.
#include <ggml-alloc.h>
#include <ggml-backend-impl.h>  // to define buffer types of our own, from the ggml tree
#include <ggml-backend.h>
#include <ggml.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <vector>

namespace {

ggml_context* new_context() {
    ggml_init_params params{/*mem_size=*/1 << 20, /*mem_buffer=*/nullptr, /*no_alloc=*/true};
    return ggml_init(params);
}

ggml_tensor* input(ggml_context* ctx, const char* name, int64_t elements = 1) {
    ggml_tensor* t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, elements);
    ggml_set_name(t, name);
    ggml_set_input(t);
    return t;
}

// a, b inputs of `elements` f32, mul = a*b output.
ggml_cgraph* seed_graph(ggml_context* ctx, int64_t elements = 1) {
    ggml_tensor* mul = ggml_mul(ctx, input(ctx, "a", elements), input(ctx, "b", elements));
    ggml_set_name(mul, "mul");
    ggml_set_output(mul);
    ggml_cgraph* graph = ggml_new_graph_custom(ctx, 16, false);  // small: threads make many
    ggml_build_forward_expand(graph, mul);
    return graph;
}

// x and x again; their product unnamed; a copy named " (copy)" as ggml names a copy of an unnamed tensor.
ggml_cgraph* names_graph(ggml_context* ctx) {
    ggml_tensor* product = ggml_mul(ctx, input(ctx, "x"), input(ctx, "x"));
    ggml_tensor* copy = ggml_scale(ctx, product, 2.0f);
    ggml_set_name(copy, " (copy)");
    ggml_set_output(copy);
    ggml_cgraph* graph = ggml_new_graph_custom(ctx, 16, false);  // small: threads make many
    ggml_build_forward_expand(graph, copy);
    ggml_set_name(product, "");  // after: ggml_build_forward_expand names unnamed nodes node_N
    return graph;
}

// Buffer types whose memory is the CPU's but whose get_alloc_size is their own.
size_t padded_alloc_size(ggml_backend_buffer_type_t, const ggml_tensor* tensor) {
    size_t size = ggml_nbytes(tensor);  // ggml-cuda's: quantized rows padded to 512 elements
    if (ggml_is_quantized(tensor->type) && tensor->ne[0] % 512 != 0) {
        size += ggml_row_size(tensor->type, 512 - tensor->ne[0] % 512);
    }
    return size;
}
size_t odd_alloc_size(ggml_backend_buffer_type_t, const ggml_tensor* tensor) { return ggml_nbytes(tensor) + 100; }

ggml_backend_buffer_type custom_type(const char* (*name)(ggml_backend_buffer_type_t),
                                     size_t (*alloc_size)(ggml_backend_buffer_type_t, const ggml_tensor*)) {
    ggml_backend_buffer_type_i iface{};
    iface.get_name = name;
    iface.alloc_buffer = [](ggml_backend_buffer_type_t, size_t size) {
        return ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), size);
    };
    iface.get_alignment = [](ggml_backend_buffer_type_t) { return size_t{32}; };
    iface.get_alloc_size = alloc_size;
    return {iface, nullptr, nullptr};
}

// w (q4_0, 32 elements: 18 bytes, 288 by ggml-cuda's rule) in PADDED; x (f32, 32) and
// y = w·x in ODD.
bool run_rules(ggml_context* ctx) {
    ggml_backend_buffer_type padded = custom_type([](ggml_backend_buffer_type_t) { return "PADDED"; }, padded_alloc_size);
    ggml_backend_buffer_type odd = custom_type([](ggml_backend_buffer_type_t) { return "ODD"; }, odd_alloc_size);
    ggml_tensor* w = ggml_new_tensor_1d(ctx, GGML_TYPE_Q4_0, 32);
    ggml_set_name(w, "w");
    ggml_set_input(w);
    ggml_tensor* y = ggml_mul_mat(ctx, w, input(ctx, "x", 32));
    ggml_set_name(y, "y");
    ggml_set_output(y);
    ggml_cgraph* graph = ggml_new_graph_custom(ctx, 16, false);
    ggml_build_forward_expand(graph, y);
    ggml_backend_buffer_type_t bufts[] = {&padded, &odd};
    ggml_gallocr_t galloc = ggml_gallocr_new_n(bufts, 2);
    const int leaf_ids[] = {0, 1};
    const int node_ids[] = {1};
    const bool ok = ggml_gallocr_reserve_n(galloc, graph, node_ids, leaf_ids);
    ggml_gallocr_free(galloc);
    return ok;
}

bool run(std::string_view mode) {
    ggml_context* ctx = new_context();
    ggml_backend_buffer_type_t cpu = ggml_backend_cpu_buffer_type();
    bool ok = true;
    if (mode == "seed" || mode == "names") {
        ggml_cgraph* graph = mode == "seed" ? seed_graph(ctx) : names_graph(ctx);
        ggml_gallocr_t galloc = ggml_gallocr_new(cpu);
        ok = ggml_gallocr_reserve(galloc, graph) && ggml_gallocr_alloc_graph(galloc, graph);
        ggml_gallocr_free(galloc);
    } else if (mode == "replan") {
        ggml_gallocr_t galloc = ggml_gallocr_new(cpu);
        ok = ggml_gallocr_alloc_graph(galloc, seed_graph(ctx));  // nothing reserved: plans inside the call
        ggml_context* second = new_context();
        ok = ok && ggml_gallocr_alloc_graph(galloc, seed_graph(second));  // same shape: the plan fits
        ggml_free(second);
        ggml_gallocr_free(galloc);
    } else if (mode == "measure") {
        ggml_backend_buffer_type_t bufts[] = {cpu, cpu};
        ggml_gallocr_t galloc = ggml_gallocr_new_n(bufts, 2);
        const int node_ids[] = {1};
        const int leaf_ids[] = {0, 1};
        ggml_cgraph* large = seed_graph(ctx, 16);
        size_t sizes[2] = {};
        ok = ggml_gallocr_reserve_n(galloc, seed_graph(ctx), node_ids, leaf_ids);
        ggml_gallocr_reserve_n_size(galloc, large, node_ids, leaf_ids, sizes);
        ok = ok && ggml_gallocr_reserve_n(galloc, large, node_ids, leaf_ids) && ggml_gallocr_alloc_graph(galloc, large);
        ggml_gallocr_free(galloc);
    } else if (mode == "threads") {
        std::vector<std::thread> threads;
        std::atomic<bool> all_ok = true;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&] {
                ggml_context* own = new_context();
                ggml_gallocr_t galloc = ggml_gallocr_new(cpu);
                for (int i = 0; i < 25; ++i) {
                    ggml_cgraph* graph = seed_graph(own);
                    all_ok = ggml_gallocr_reserve(galloc, graph) && ggml_gallocr_alloc_graph(galloc, graph) && all_ok;
                }
                ggml_gallocr_free(galloc);
                ggml_free(own);
            });
        }
        for (std::thread& thread : threads) {
            thread.join();
        }
        ok = all_ok;
    } else if (mode == "rules") {
        ok = run_rules(ctx);
    } else if (mode == "none") {
        seed_graph(ctx);
    } else {
        std::fprintf(stderr, "capture_probe: unknown mode\n");
        ok = false;
    }
    ggml_free(ctx);
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: capture_probe seed|names|replan|measure|threads|rules|none [EXIT_CODE]\n");
        return 1;
    }
    if (!run(argv[1])) {
        return 1;
    }
    return argc > 2 ? std::atoi(argv[2]) : 0;
}
