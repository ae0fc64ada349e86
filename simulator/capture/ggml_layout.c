/* One ggml version's layout (ggml_layout.h), from its own headers: CMake compiles this file
 * once per header tree, naming the result GALLOCSIM_LAYOUT_SYMBOL. C, so that two trees'
 * different definitions of the same struct never meet in one C++ program. */
#include "simulator/capture/ggml_layout.h"

#include <ggml.h>
#if GALLOCSIM_CGRAPH_IN_IMPL
#include <ggml-impl.h>
#endif

const struct gallocsim_ggml_layout GALLOCSIM_LAYOUT_SYMBOL = {
    .tree = GALLOCSIM_LAYOUT_TREE,
    .tensor_size = sizeof(struct ggml_tensor),
    .max_dims = GGML_MAX_DIMS,
    .max_src = GGML_MAX_SRC,
    .max_name = GGML_MAX_NAME,
    .type = offsetof(struct ggml_tensor, type),
    .buffer = offsetof(struct ggml_tensor, buffer),
    .ne = offsetof(struct ggml_tensor, ne),
    .nb = offsetof(struct ggml_tensor, nb),
    .op = offsetof(struct ggml_tensor, op),
    .flags = offsetof(struct ggml_tensor, flags),
    .src = offsetof(struct ggml_tensor, src),
    .view_src = offsetof(struct ggml_tensor, view_src),
    .view_offs = offsetof(struct ggml_tensor, view_offs),
    .data = offsetof(struct ggml_tensor, data),
    .name = offsetof(struct ggml_tensor, name),
    .graph_n_nodes = offsetof(struct ggml_cgraph, n_nodes),
    .graph_n_leafs = offsetof(struct ggml_cgraph, n_leafs),
    .graph_nodes = offsetof(struct ggml_cgraph, nodes),
    .graph_leafs = offsetof(struct ggml_cgraph, leafs),
};
