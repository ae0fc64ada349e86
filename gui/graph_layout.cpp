#include "gui/graph_layout.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace gallocsim::gui {

namespace {

constexpr int kNoLayer = -1;

struct Placement {
    int layer = kNoLayer;
    double order = 0;  // position among the layer's tensors: execution order
    bool shown = false;
};

} // namespace

GraphLayout::GraphLayout(const GraphFile& file) {
    const auto& tensors = file.context.tensors();
    std::unordered_map<const Tensor*, std::size_t> index_of;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        index_of.emplace(&tensors[i], i);
    }
    std::vector<Placement> place(tensors.size());
    std::vector<bool> is_node(tensors.size(), false);
    for (const Tensor* node : file.graph.nodes) {
        is_node[index_of.at(node)] = true;
    }

    auto sources_of = [&](const Tensor& tensor) {
        std::vector<std::size_t> sources;
        for (const Tensor* src : tensor.src) {
            if (src != nullptr) {
                sources.push_back(index_of.at(src));
            }
        }
        if (tensor.view_src != nullptr) {
            sources.push_back(index_of.at(tensor.view_src));
        }
        return sources;
    };

    // Nodes: one layer below the deepest node they read (leafs count as layer 0).
    for (std::size_t k = 0; k < file.graph.nodes.size(); ++k) {
        const std::size_t node = index_of.at(file.graph.nodes[k]);
        int layer = 1;
        for (std::size_t src : sources_of(tensors[node])) {
            if (is_node[src] && place[src].layer != kNoLayer) {
                layer = std::max(layer, place[src].layer + 1);
            }
        }
        place[node] = {layer, static_cast<double>(k), true};
    }
    // Everything else a node reads (leafs, and sources in neither list): one layer above
    // its highest consumer, ordered just before its first consumer.
    for (std::size_t k = 0; k < file.graph.nodes.size(); ++k) {
        const std::size_t node = index_of.at(file.graph.nodes[k]);
        for (std::size_t src : sources_of(tensors[node])) {
            if (is_node[src]) {
                continue;
            }
            Placement& p = place[src];
            if (!p.shown) {
                p = {place[node].layer - 1, static_cast<double>(k) - 0.5, true};
            } else {
                p.layer = std::min(p.layer, place[node].layer - 1);
            }
        }
    }
    // Leafs nothing reads: on the top layer, first.
    for (const Tensor* leaf : file.graph.leafs) {
        Placement& p = place[index_of.at(leaf)];
        if (!p.shown) {
            p = {0, -1.0, true};
        }
    }

    // Boxes grouped by layer, in order; each layer centred on x = 0.
    std::map<int, std::vector<std::size_t>> layers;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (place[i].shown) {
            layers[place[i].layer].push_back(i);
        }
    }
    double y = 0;
    int layer_number = 0;
    for (auto& [layer, members] : layers) {
        std::ranges::stable_sort(members, [&](std::size_t a, std::size_t b) { return place[a].order < place[b].order; });
        layer_start_.push_back(boxes_.size());
        layer_top_.push_back(y);
        const double width = static_cast<double>(members.size()) * (kBoxWidth + kColumnGap) - kColumnGap;
        double x = -width / 2;
        for (std::size_t tensor : members) {
            const bool view = tensors[tensor].is_view();
            const double height = view ? kViewHeight : kBoxHeight;
            box_of_tensor_.emplace(tensor, boxes_.size());
            boxes_.push_back({tensor, QRectF(x, y + (kBoxHeight - height) / 2, kBoxWidth, height), layer_number, view});
            bounds_ = bounds_.united(boxes_.back().rect);
            x += kBoxWidth + kColumnGap;
        }
        y += kBoxHeight + kLayerGap;
        ++layer_number;
    }
    layer_start_.push_back(boxes_.size());

    // Edges: each source to its reader once; a view's link to its root when the root is
    // not already one of its sources.
    for (const GraphBox& box : boxes_) {
        const Tensor& tensor = tensors[box.tensor];
        std::set<std::size_t> seen;
        for (const Tensor* src : tensor.src) {
            if (src != nullptr && seen.insert(index_of.at(src)).second) {
                edges_.push_back({box_of_tensor_.at(index_of.at(src)), box_of_tensor_.at(box.tensor), false});
            }
        }
        if (tensor.view_src != nullptr && !seen.contains(index_of.at(tensor.view_src))) {
            edges_.push_back({box_of_tensor_.at(index_of.at(tensor.view_src)), box_of_tensor_.at(box.tensor), true});
        }
    }
}

std::optional<std::size_t> GraphLayout::box_of(std::size_t tensor) const {
    const auto it = box_of_tensor_.find(tensor);
    return it == box_of_tensor_.end() ? std::nullopt : std::optional(it->second);
}

std::vector<std::size_t> GraphLayout::boxes_in(const QRectF& area) const {
    std::vector<std::size_t> found;
    const double row = kBoxHeight + kLayerGap;
    const auto layer_count = static_cast<std::ptrdiff_t>(layer_top_.size());
    const auto first = std::clamp<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(std::floor(area.top() / row)), 0, layer_count);
    const auto last = std::clamp<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(std::floor(area.bottom() / row)) + 1, 0, layer_count);
    for (auto layer = first; layer < last; ++layer) {
        for (std::size_t i = layer_start_[static_cast<std::size_t>(layer)]; i < layer_start_[static_cast<std::size_t>(layer) + 1]; ++i) {
            if (boxes_[i].rect.intersects(area)) {
                found.push_back(i);
            }
        }
    }
    return found;
}

std::optional<std::size_t> GraphLayout::box_at(QPointF scene) const {
    for (std::size_t i : boxes_in(QRectF(scene, QSizeF(1e-6, 1e-6)))) {
        if (boxes_[i].rect.contains(scene)) {
            return i;
        }
    }
    return std::nullopt;
}

} // namespace gallocsim::gui
