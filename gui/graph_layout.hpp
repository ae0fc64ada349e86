#pragma once
// Where the graph view draws each tensor: a layered drawing of the compute graph. A node's
// layer is one below its deepest source; a leaf sits one layer above its first consumer
// (so leafs are on top of what reads them, and a long graph does not start with a row of
// hundreds of weights); within a layer tensors follow execution order. Views are smaller
// boxes, linked to the root they look into.

#include "simulator/model/graph_file.hpp"

#include <QRectF>

#include <cstddef>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace gallocsim::gui {

struct GraphBox {
    std::size_t tensor = 0;  // index into the file's context
    QRectF rect;             // scene coordinates
    int layer = 0;
    bool is_view = false;
};

struct GraphEdge {
    std::size_t from = 0;  // box indices: source ...
    std::size_t to = 0;    // ... and the tensor that reads it (or the view)
    bool view_link = false;  // a view to its root, drawn dashed
};

class GraphLayout {
public:
    static constexpr double kBoxWidth = 150;
    static constexpr double kBoxHeight = 38;
    static constexpr double kViewHeight = 28;
    static constexpr double kColumnGap = 24;
    static constexpr double kLayerGap = 46;

    GraphLayout() = default;
    explicit GraphLayout(const GraphFile& file);

    std::span<const GraphBox> boxes() const { return boxes_; }
    std::span<const GraphEdge> edges() const { return edges_; }
    QRectF bounds() const { return bounds_; }
    std::optional<std::size_t> box_of(std::size_t tensor) const;

    // Indices of the boxes that intersect `area` (boxes are kept in layer order, so this
    // looks only at the layers the area spans).
    std::vector<std::size_t> boxes_in(const QRectF& area) const;
    std::optional<std::size_t> box_at(QPointF scene) const;

private:

    std::vector<GraphBox> boxes_;
    std::vector<GraphEdge> edges_;
    std::vector<std::size_t> layer_start_;  // first box index of each layer, plus the end
    std::vector<double> layer_top_;         // y of each layer
    std::unordered_map<std::size_t, std::size_t> box_of_tensor_;
    QRectF bounds_;
};

} // namespace gallocsim::gui
