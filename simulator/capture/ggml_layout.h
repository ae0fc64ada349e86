/* Where a ggml version keeps the fields of struct ggml_tensor and struct ggml_cgraph that the
 * capture reads. Those structs changed between the versions the capture supports (the 2024
 * ggml_tensor had backend, grad and perf fields; ggml_cgraph moved from ggml.h to the private
 * ggml-impl.h), so the capture reads them through offsets worked out by the compiler from
 * each version's own headers (ggml_layout.c, compiled once per header tree) and picks the
 * layout of the program's ggml at run time. Plain C, shared with the C++ side. */
#ifndef GALLOCSIM_GGML_LAYOUT_H
#define GALLOCSIM_GGML_LAYOUT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gallocsim_ggml_layout {
    const char * tree;      /* the header tree it was compiled against */
    size_t tensor_size;     /* sizeof(struct ggml_tensor): ggml_tensor_overhead() less ggml_object's 32 bytes */
    size_t max_dims, max_src, max_name;
    /* struct ggml_tensor */
    size_t type, buffer, ne, nb, op, flags, src, view_src, view_offs, data, name;
    /* struct ggml_cgraph */
    size_t graph_n_nodes, graph_n_leafs, graph_nodes, graph_leafs;
};

#ifdef __cplusplus
}
#endif

#endif
