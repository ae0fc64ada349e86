#pragma once
// The compute graph as a layered drawing (see GraphLayout), each tensor coloured by where
// its memory stands at the cursor: not yet allocated (white, dashed), live (its own
// colour), an output (its colour, heavy border), handed over in place (faded, joined to
// the node that took it by a band in its colour), freed (grey), external data (slate).
// Views are small boxes in their root's colour, linked to the root by a dashed line. The
// tensors of the last step are outlined in orange, the selection in blue. Far out, text
// and then edges are dropped so that thousands of nodes still draw quickly. A graph too
// tall to fit at a readable width is squeezed along y only (Ctrl+0 on a thousand nodes
// gives a column of stripes in their tensors' colours, not of single pixels), with node
// numbers down the left edge.

#include "gui/canvas_view.hpp"
#include "gui/graph_layout.hpp"
#include "simulator/trace/trace.hpp"

#include <QColor>

namespace gallocsim::gui {

class SimulationController;

enum class TensorLook {
    unallocated,
    live,
    output,
    handed_over,
    freed,
    external,
    view,
};

class GraphView : public CanvasView {
    Q_OBJECT
public:
    explicit GraphView(SimulationController& controller, QWidget* parent = nullptr);

    const GraphLayout& layout() const { return layout_; }
    // How the tensor is drawn at the cursor.
    TensorLook look_of(TensorId tensor) const;
    // Where a tensor's box is in the widget now (empty when it is not drawn).
    QRectF box_rect(TensorId tensor) const;
    void reveal(TensorId tensor);
    void set_legend_visible(bool visible);
    // The node numbers shown down the left edge when boxes carry no names: each node's
    // position in execution order and the y of its box in the widget.
    struct RulerMark {
        int node = 0;
        double y = 0;
    };
    std::vector<RulerMark> node_ruler() const;

protected:
    QRectF scene_bounds() const override { return layout_.bounds(); }
    void paint_scene(QPainter& painter) override;
    std::optional<std::size_t> tensor_at(QPointF widget_pos) const override;
    // A fitted graph keeps clear of the legend along the bottom edge.
    QMarginsF fit_margins() const override { return {12, 12, 12, 12 + legend_height()}; }
    double min_scale_x() const override;

private:
    void rebuild();
    void follow_last_step();
    void paint_edges(QPainter& painter, const QRectF& visible);
    void paint_in_place_bands(QPainter& painter, const std::vector<std::size_t>& boxes);
    void paint_box(QPainter& painter, const GraphBox& box, bool with_text);
    std::vector<RulerMark> ruler_marks(const std::vector<std::size_t>& boxes) const;
    void paint_node_ruler(QPainter& painter, const std::vector<std::size_t>& boxes);
    void paint_legend(QPainter& painter);
    double legend_height() const;

    SimulationController& controller_;
    GraphLayout layout_;
    bool legend_ = true;
};

} // namespace gallocsim::gui
