#pragma once
// Memory over the whole trace, drawn from the simulator's Timeline (as the SVG render is):
// y is the offset in a chunk (0 at the bottom of the chunk's band; chunks are stacked
// bands); x is time, in node steps (the default: one column per node, as `gallocsim render`
// draws it) or in events (every event its own column, the counting pass included). Each
// stretch of a tensor's memory is a rectangle in its colour, named where the name fits;
// the cursor is a red line (on the node-step axis it moves through its step's column as
// the step's events apply) and the event where the most bytes are live is marked.
// Clicking a rectangle selects its tensor everywhere.

#include "gui/canvas_view.hpp"
#include "gui/offset_scale.hpp"
#include "simulator/trace/timeline.hpp"

#include <QPixmap>

#include <vector>

namespace gallocsim::gui {

class SimulationController;

class TimelineView : public CanvasView {
    Q_OBJECT
public:
    explicit TimelineView(SimulationController& controller, QWidget* parent = nullptr);

    TimeAxis axis() const { return axis_; }
    void set_axis(TimeAxis axis);
    // Offsets up the bands: linear (the default) or logarithmic (gui/offset_scale.hpp).
    void set_offset_scale(OffsetScaleKind kind);
    OffsetScaleKind offset_scale() const { return scale_.kind(); }

    // The rectangle of a tensor's memory live at the cursor, in widget coordinates.
    QRectF span_rect(TensorId tensor) const;
    // The offset axis along the right edge: in each chunk's band, round offsets (powers of
    // two, at least 28 pixels apart) and where they are in the widget.
    struct OffsetTick {
        int allocator = 0;
        int chunk = 0;
        std::size_t offset = 0;
        double y = 0;
    };
    std::vector<OffsetTick> offset_ticks() const;

protected:
    QRectF scene_bounds() const override;
    void paint_scene(QPainter& painter) override;
    std::optional<std::size_t> tensor_at(QPointF widget_pos) const override;
    bool uniform_zoom() const override { return false; }
    std::optional<Qt::Orientation> offset_axis() const override { return Qt::Vertical; }
    QMarginsF fit_margins() const override;

private:
    struct Band {
        int allocator = 0;
        int chunk = 0;
        std::size_t size = 0;
        double bottom = 0;  // scene y of offset 0
    };
    void rebuild();
    // Where memory is drawn: the widget less the label strips at the top, bottom and right.
    QRectF data_area() const;
    void paint_memory(QPainter& painter);        // bands and spans: the same at every step
    void paint_cursor_marks(QPainter& painter);  // the last step's tensors, selection, peak, cursor
    void paint_band_titles(QPainter& painter);   // placed by paint_memory, drawn over everything
    QRectF scene_rect_of(const MemorySpan& span) const;
    double x_of_position(std::size_t position) const;  // a cursor position on the axis shown
    double axis_length() const;
    QString position_text(std::size_t position) const;  // "node step 3 · event 12" or "event 12"
    void paint_step_ticks(QPainter& painter);
    void paint_offset_ticks(QPainter& painter);
    const Band* band_of(int allocator, int chunk) const;

    SimulationController& controller_;
    TimeAxis axis_ = TimeAxis::node_steps;
    std::vector<Band> bands_;
    OffsetScale scale_;  // offsets up the bands
    double height_ = 1;
    double right_strip_ = 14;  // the offset axis's width, set by rebuild
    std::size_t peak_position_ = 0;
    std::size_t peak_bytes_ = 0;
    struct BandTitle {
        QRectF box;
        QString text;
    };
    std::vector<BandTitle> titles_;  // where paint_memory placed the chunks' names
    QPixmap cache_;       // paint_memory's picture for the view as it was drawn
    QRectF cache_unit_;   // where scene (0,0)-(1,1) was then: changes with zoom and pan
    bool cache_stale_ = true;
};

} // namespace gallocsim::gui
