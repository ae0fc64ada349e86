#pragma once
// The memory of each buffer type at the cursor, one address bar per chunk: live tensors
// as blocks in their colours with their names, free blocks hatched, the high-water mark
// as a red line, bytes past it left blank. The block the last step took or gave back is
// outlined in orange; when that step changed a chunk's free list, a thin "before" strip
// above the bar shows the free list as it was, so splits and merges read before/after.
// Bars keep the length their chunk reaches by the end, so nothing moves while stepping.

#include "gui/canvas_view.hpp"
#include "gui/offset_scale.hpp"
#include "simulator/trace/peak.hpp"
#include "simulator/trace/trace.hpp"

#include <vector>

namespace gallocsim::gui {

class SimulationController;

class MemoryMapView : public CanvasView {
    Q_OBJECT
public:
    explicit MemoryMapView(SimulationController& controller, QWidget* parent = nullptr);

    // Where a live tensor's block is drawn now, in widget coordinates (empty if none).
    QRectF block_rect(TensorId tensor) const;
    // Offsets along the bars: linear (the default) or logarithmic (gui/offset_scale.hpp).
    void set_offset_scale(OffsetScaleKind kind);
    OffsetScaleKind offset_scale() const { return scale_.kind(); }

protected:
    QRectF scene_bounds() const override;
    void paint_scene(QPainter& painter) override;
    std::optional<std::size_t> tensor_at(QPointF widget_pos) const override;
    bool uniform_zoom() const override { return false; }
    std::optional<Qt::Orientation> offset_axis() const override { return Qt::Horizontal; }
    bool fit_height() const override { return false; }
    QMarginsF fit_margins() const override { return {16, 8, 24, 8}; }

private:
    struct Row {
        int allocator = 0;
        int chunk = -1;   // -1: the allocator's heading
        double top = 0;   // scene y
        std::size_t size = 0;  // final chunk size
    };
    void rebuild();
    void paint_heading(QPainter& painter, const Row& row);
    // The peak go_to_peak shows: its live tensors outlined, its holes marked with the free that left them.
    void paint_peak(QPainter& painter, const Row& row, const BufferPeak& peak);
    void paint_chunk(QPainter& painter, const Row& row);
    void paint_free_blocks(QPainter& painter, const std::vector<FreeBlock>& blocks, std::size_t limit, QRectF band);
    void paint_last_step(QPainter& painter, const Row& row, QRectF bar);
    QRectF bar_rect(const Row& row) const;  // widget coordinates
    QRectF visible_part(QRectF r) const;     // what of a widget rectangle lies across the view
    // Draws a label where it fits whole inside the view (gui/label_placer.hpp's draw_whole).
    bool draw_label(QPainter& painter, const QRectF& box, int flags, const QString& text) const;
    QRectF byte_range(const Row& row, std::size_t offset, std::size_t size) const;

    SimulationController& controller_;
    std::vector<Row> rows_;
    std::size_t widest_ = 1;
    OffsetScale scale_;  // offsets along the bars
    double height_ = 0;
};

} // namespace gallocsim::gui
