#include "gui/timeline_view.hpp"

#include "gui/simulation_controller.hpp"
#include "gui/tensor_color.hpp"
#include "gui/text.hpp"
#include "simulator/trace/explain.hpp"

#include <QPainter>

#include <algorithm>

namespace gallocsim::gui {

namespace {
constexpr double kBandGapShare = 0.06;  // the gap between bands, as a share of the tallest band

// The smallest of 1, 2, 5, 10, 20, 50, ... that is at least `least`.
std::size_t tick_spacing(double least) {
    for (std::size_t decade = 1; decade < (std::size_t{1} << 60); decade *= 10) {
        for (std::size_t m : {1, 2, 5}) {
            if (static_cast<double>(m * decade) >= least) {
                return m * decade;
            }
        }
    }
    return std::size_t{1} << 60;
}
} // namespace

TimelineView::TimelineView(SimulationController& controller, QWidget* parent)
    : CanvasView(parent), controller_(controller) {
    setWindowTitle(tr("Timeline"));
    connect(&controller_, &SimulationController::graph_changed, this, &TimelineView::rebuild);
    connect(&controller_, &SimulationController::position_changed, this, [this] { update(); });
    connect(&controller_, &SimulationController::selection_changed, this, [this] { update(); });
    rebuild();
}

void TimelineView::rebuild() {
    cache_stale_ = true;
    bands_.clear();
    height_ = 1;
    peak_position_ = peak_bytes_ = 0;
    if (controller_.has_graph()) {
        std::size_t tallest = 1;
        for (const ChunkExtent& extent : controller_.timeline().chunks()) {
            tallest = std::max(tallest, extent.size);
        }
        scale_ = OffsetScale(scale_.kind(), tallest);
        const double gap = scale_(tallest) * kBandGapShare;
        double y = 0;
        for (const ChunkExtent& extent : controller_.timeline().chunks()) {
            y += std::max(scale_(extent.size), 1.0);
            bands_.push_back({extent.allocator, extent.chunk, extent.size, y});
            y += gap;
        }
        height_ = std::max(y - gap, 1.0);
        const auto live = controller_.cursor().live_bytes();
        const auto peak = std::ranges::max_element(live);
        if (peak != live.end()) {
            peak_position_ = static_cast<std::size_t>(peak - live.begin());
            peak_bytes_ = *peak;
        }
    }
    fit_to_window();
}

void TimelineView::set_offset_scale(OffsetScaleKind kind) {
    if (kind != scale_.kind()) {
        scale_ = OffsetScale(kind, 1);
        rebuild();  // band heights, and the scale's largest chunk, follow
    }
}

void TimelineView::set_axis(TimeAxis axis) {
    if (axis != axis_) {
        axis_ = axis;
        cache_stale_ = true;
        fit_to_window();
    }
}

double TimelineView::axis_length() const {
    if (!controller_.has_graph()) {
        return 1;
    }
    const auto length = axis_ == TimeAxis::events ? controller_.event_count() : controller_.timeline().step_count();
    return std::max(1.0, static_cast<double>(length));
}

double TimelineView::x_of_position(std::size_t position) const {
    return axis_ == TimeAxis::events ? static_cast<double>(position) : controller_.timeline().step_coordinate(position);
}

QString TimelineView::position_text(std::size_t position) const {
    if (axis_ == TimeAxis::events || position == 0) {
        return tr("event %1").arg(position);
    }
    const Timeline& timeline = controller_.timeline();
    const std::size_t step = timeline.step_of_event(position - 1);
    const QString plan = timeline.plan_count() > 1 ? tr(" of plan %1").arg(timeline.plan_of_step(step) + 1) : QString();
    return tr("node step %1%2 · event %3").arg(timeline.step_in_plan(step)).arg(plan).arg(position);
}

QRectF TimelineView::scene_bounds() const {
    return {0, 0, axis_length(), height_};
}

const TimelineView::Band* TimelineView::band_of(int allocator, int chunk) const {
    for (const Band& band : bands_) {
        if (band.allocator == allocator && band.chunk == chunk) {
            return &band;
        }
    }
    return nullptr;
}

QRectF TimelineView::scene_rect_of(const MemorySpan& span) const {
    const Band* band = band_of(span.allocator, span.address.chunk);
    if (band == nullptr) {
        return {};
    }
    const double top = band->bottom - scale_(span.address.offset + span.size);
    const double height = scale_.length(span.address.offset, span.size);
    if (axis_ == TimeAxis::node_steps) {
        // A column per node step, from the step that gave it memory to the last it held it in;
        // the column where a node took its memory over in place is drawn as the node's.
        const auto first = static_cast<double>(span.first_step);
        const bool handed_on = span.how_it_ends == SpanEnd::handed_over && span.last_step > span.first_step;
        const auto end = static_cast<double>(handed_on ? span.last_step : span.last_step + 1);
        return {first, top, end - first, height};
    }
    // A span kept to the end reaches the last position.
    const double end = static_cast<double>(std::min(span.end, controller_.event_count()));
    return {static_cast<double>(span.first), top, end - static_cast<double>(span.first), height};
}

QRectF TimelineView::span_rect(TensorId tensor) const {
    const MemorySpan* span = controller_.has_graph() ? controller_.timeline().span_at(tensor, controller_.position()) : nullptr;
    return span != nullptr ? map_to_widget(scene_rect_of(*span)) : QRectF();
}

std::optional<std::size_t> TimelineView::tensor_at(QPointF widget_pos) const {
    if (!controller_.has_graph()) {
        return std::nullopt;
    }
    const QPointF scene = map_to_scene(widget_pos);
    for (const MemorySpan& span : controller_.timeline().spans()) {
        if (scene_rect_of(span).contains(scene)) {
            return static_cast<std::size_t>(span.tensor);
        }
    }
    return std::nullopt;
}

// What the cursor does not change (bands and spans) is drawn once into a pixmap and reused
// until the view moves, resizes or the graph changes: with thousands of spans, redrawing
// them on every step took half of a step's time. Exports draw everything afresh.
void TimelineView::paint_scene(QPainter& painter) {
    if (!controller_.has_graph()) {
        return;
    }
    if (painter.device() == this) {
        const qreal ratio = devicePixelRatioF();
        const QRectF unit = map_to_widget(QRectF(0, 0, 1, 1));
        if (cache_.isNull() || cache_.size() != size() * ratio || cache_unit_ != unit || cache_stale_) {
            cache_ = QPixmap(size() * ratio);
            cache_.setDevicePixelRatio(ratio);
            cache_.fill(Qt::transparent);
            QPainter cache_painter(&cache_);
            cache_painter.setRenderHint(QPainter::Antialiasing);
            paint_memory(cache_painter);
            cache_unit_ = unit;
            cache_stale_ = false;
        }
        painter.drawPixmap(0, 0, cache_);
    } else {
        paint_memory(painter);
    }
    paint_cursor_marks(painter);
}

void TimelineView::paint_memory(QPainter& painter) {
    const Trace& trace = controller_.trace();
    const QRectF visible = visible_scene_rect();
    const double steps = axis_length();
    QFont font = this->font();
    font.setPixelSize(11);
    painter.setFont(font);

    // Bands: one per chunk, named at their top left.
    for (const Band& band : bands_) {
        const QRectF r = map_to_widget(QRectF(0, band.bottom - scale_(band.size), steps, scale_(band.size)));
        painter.setPen(Qt::NoPen);
        painter.setBrush(band.chunk % 2 == 0 ? QColor(238, 241, 246) : QColor(246, 241, 234));
        painter.drawRect(r);
        painter.setPen(palette::muted_text);
        QString type;
        for (const TraceBuffer& buffer : trace.buffers) {
            if (buffer.allocator == band.allocator) {
                type = qstr(buffer.type_name);
                break;
            }
        }
        painter.drawText(r.adjusted(4, 2, -4, -2), Qt::AlignLeft | Qt::AlignTop,
                         tr("%1 chunk %2 · %3").arg(type).arg(band.chunk).arg(human_bytes(band.size)));
    }

    // Memory spans.
    painter.setRenderHint(QPainter::Antialiasing, false);
    const bool outlines = controller_.timeline().spans().size() < 2000 || scale_x() > 2;
    const QFontMetricsF metrics(painter.font());
    for (const MemorySpan& span : controller_.timeline().spans()) {
        const QRectF scene = scene_rect_of(span);
        if (!scene.intersects(visible)) {
            continue;
        }
        const QRectF r = map_to_widget(scene);
        painter.setPen(outlines ? QPen(palette::outline, 0.5) : Qt::NoPen);
        painter.setBrush(controller_.color(span.tensor));
        painter.drawRect(r);
        // The name, where it fits whole (as the SVG render does).
        const QString name = qstr(trace.tensor(span.tensor).name);
        if (r.height() >= metrics.height() + 2 && r.width() >= metrics.horizontalAdvance(name) + 6) {
            painter.setPen(palette::text);
            painter.drawText(r, Qt::AlignCenter, name);
        }
    }
    painter.setRenderHint(QPainter::Antialiasing);
    paint_step_ticks(painter);
    paint_offset_ticks(painter);
}

std::vector<TimelineView::OffsetTick> TimelineView::offset_ticks() const {
    constexpr double kLeast = 28;  // pixels between ticks, at least
    const double pixels_per_byte = scale_y();
    std::vector<OffsetTick> ticks;
    if (pixels_per_byte <= 0) {
        return ticks;
    }
    for (const Band& band : bands_) {
        const auto y_of = [&](std::size_t offset) { return map_to_widget(QPointF(0, band.bottom - scale_(offset))).y(); };
        if (scale_.kind() == OffsetScaleKind::logarithmic) {
            // 0, then powers of two from 1 KiB, each at least kLeast pixels above the last one kept.
            ticks.push_back({band.allocator, band.chunk, 0, y_of(0)});
            for (std::size_t offset = 1024; offset <= band.size && offset < (std::size_t{1} << 62); offset *= 2) {
                if (ticks.back().y - y_of(offset) >= kLeast) {
                    ticks.push_back({band.allocator, band.chunk, offset, y_of(offset)});
                }
            }
            continue;
        }
        // The smallest power of two that keeps the ticks apart: offsets in round binary units.
        std::size_t every = 1;
        while (static_cast<double>(every) * pixels_per_byte < kLeast && every < (std::size_t{1} << 62)) {
            every *= 2;
        }
        for (std::size_t offset = 0; offset <= band.size; offset += every) {
            ticks.push_back({band.allocator, band.chunk, offset, y_of(offset)});
            if (band.size - offset < every) {
                break;
            }
        }
    }
    return ticks;
}

// Offsets along the right edge, as the SVG's memory axis: where in its chunk a block lies.
void TimelineView::paint_offset_ticks(QPainter& painter) {
    const QFontMetricsF metrics(painter.font());
    const double right = width() - 2;
    for (const OffsetTick& tick : offset_ticks()) {
        if (tick.y < 0 || tick.y > height()) {
            continue;
        }
        const QString label = human_bytes(tick.offset);
        const double label_width = metrics.horizontalAdvance(label) + 4;
        painter.setPen(palette::muted_text);
        painter.drawLine(QPointF(right - 5, tick.y), QPointF(right, tick.y));
        const QRectF text(right - 7 - label_width, tick.y - 7, label_width, 14);
        painter.fillRect(text, QColor(255, 255, 255, 200));
        painter.drawText(text, Qt::AlignRight | Qt::AlignVCenter, label);
    }
}

// Ticks along the bottom edge at round steps (or events), at least 60 pixels apart.
void TimelineView::paint_step_ticks(QPainter& painter) {
    const double pixels_per_unit = map_to_widget(QPointF(1, 0)).x() - map_to_widget(QPointF(0, 0)).x();
    if (pixels_per_unit <= 0) {
        return;
    }
    const std::size_t every = tick_spacing(60 / pixels_per_unit);
    const QRectF visible = visible_scene_rect();
    const double bottom = height() - 4;
    painter.setPen(palette::muted_text);
    const auto first = static_cast<std::size_t>(std::max(0.0, visible.left()) / static_cast<double>(every)) * every;
    for (std::size_t unit = first; static_cast<double>(unit) <= std::min(visible.right(), axis_length()); unit += every) {
        // On the node-step axis the label sits in the middle of its column.
        const double middle = axis_ == TimeAxis::node_steps ? 0.5 : 0.0;
        const double x = map_to_widget(QPointF(static_cast<double>(unit) + middle, 0)).x();
        painter.drawLine(QPointF(x, bottom - 4), QPointF(x, bottom));
        const std::size_t shown = axis_ == TimeAxis::node_steps ? controller_.timeline().step_in_plan(unit) : unit;
        painter.drawText(QRectF(x - 30, bottom - 18, 60, 14), Qt::AlignCenter, QString::number(shown));
    }

}

void TimelineView::paint_cursor_marks(QPainter& painter) {
    QFont font = this->font();
    font.setPixelSize(11);
    painter.setFont(font);

    // The last step's tensors and the selection.
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(palette::highlight, 2.5));
    for (TensorId tensor : controller_.last_event_tensors()) {
        if (const QRectF r = span_rect(tensor); !r.isEmpty()) {
            painter.drawRect(r.adjusted(-1, -1, 1, 1));
        }
    }
    if (const auto selected = controller_.selected()) {
        painter.setPen(QPen(palette::selection, 2.5, Qt::DashLine));
        for (const MemorySpan* span : controller_.timeline().spans_of(*selected)) {
            painter.drawRect(map_to_widget(scene_rect_of(*span)).adjusted(-2, -2, 2, 2));
        }
    }

    // The peak of live bytes, and the cursor.
    const double peak_x = map_to_widget(QPointF(x_of_position(peak_position_), 0)).x();
    painter.setPen(QPen(QColor(120, 60, 160), 1.5, Qt::DashLine));
    painter.drawLine(QPointF(peak_x, 14), QPointF(peak_x, height()));
    // Labels sit right of their line, or left of it near the right edge.
    auto label = [&](double x, double y, const QString& text) {
        const double width = QFontMetricsF(painter.font()).horizontalAdvance(text) + 8;
        const bool left = x + width > this->width();
        painter.drawText(QRectF(left ? x - width : x + 4, y, width, 16), (left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                         text);
    };
    label(peak_x, 0, tr("peak: %1 live at %2").arg(human_bytes(peak_bytes_)).arg(position_text(peak_position_)));
    if (const BufferPeak* peak = controller_.shown_peak()) {
        // Where go_to_peak stopped: the event that set a buffer's size.
        painter.setPen(QPen(QColor(200, 30, 30), 2));
        const double x = map_to_widget(QPointF(x_of_position(*peak->event + 1), 0)).x();
        painter.drawLine(QPointF(x, 14), QPointF(x, height()));
        label(x, 16, tr("buffer %1 reaches %2 here").arg(peak->buffer_id).arg(human_bytes(peak->size)));
    }
    const double cursor_x = map_to_widget(QPointF(x_of_position(controller_.position()), 0)).x();
    painter.setPen(QPen(palette::cursor, 2));
    painter.drawLine(QPointF(cursor_x, 0), QPointF(cursor_x, height()));
    label(cursor_x, height() - 36, position_text(controller_.position()));
}

} // namespace gallocsim::gui
