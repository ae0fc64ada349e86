#include "gui/timeline_view.hpp"

#include "gui/label_placer.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/tensor_color.hpp"
#include "gui/text.hpp"
#include "simulator/trace/explain.hpp"

#include <QPainter>

#include <algorithm>

namespace gallocsim::gui {

namespace {
constexpr double kBandGapShare = 0.06;  // the gap between bands, as a share of the tallest band
// Strips along three edges hold the labels, so that no label is drawn over a tensor or over
// another: the top strip has two lanes (the peak of live bytes; where a buffer reached its
// size), the bottom one two (the cursor; the step axis), the right one the offset axis.
constexpr double kLane = 17;
constexpr double kTopStrip = 2 * kLane + 4;
constexpr double kBottomStrip = 2 * kLane + 6;

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
        // The offset axis is as wide as its widest label, the tallest chunk's size.
        QFont font = this->font();
        font.setPixelSize(11);
        right_strip_ = QFontMetricsF(font).horizontalAdvance(human_bytes(tallest)) + 14;
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

QRectF TimelineView::data_area() const {
    return {0, kTopStrip, std::max(0.0, width() - right_strip_), std::max(0.0, height() - kTopStrip - kBottomStrip)};
}

QMarginsF TimelineView::fit_margins() const {
    return {14, kTopStrip + 6, right_strip_ + 4, kBottomStrip + 6};
}

std::optional<std::size_t> TimelineView::tensor_at(QPointF widget_pos) const {
    if (!controller_.has_graph() || !data_area().contains(widget_pos)) {
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
    paint_band_titles(painter);
}

// Over the spans and the cursor's lines, on a light ground: no line crosses a chunk's name.
void TimelineView::paint_band_titles(QPainter& painter) {
    QFont font = this->font();
    font.setPixelSize(11);
    painter.setFont(font);
    for (const BandTitle& title : titles_) {
        painter.fillRect(title.box, QColor(255, 255, 255, 230));
        painter.setPen(palette::muted_text);
        painter.drawText(title.box, Qt::AlignCenter | Qt::TextDontClip, title.text);
    }
}

void TimelineView::paint_memory(QPainter& painter) {
    const Trace& trace = controller_.trace();
    const QRectF visible = visible_scene_rect();
    const double steps = axis_length();
    QFont font = this->font();
    font.setPixelSize(11);
    painter.setFont(font);
    const QFontMetricsF metrics(painter.font());

    // Memory is drawn inside the data area only; the strips around it hold the axes.
    painter.save();
    painter.setClipRect(data_area());
    LabelPlacer names(data_area());
    // Bands: one per chunk, named at their top left; the names are placed first, so tensor
    // names give way to them.
    titles_.clear();
    for (const Band& band : bands_) {
        const QRectF r = map_to_widget(QRectF(0, band.bottom - scale_(band.size), steps, scale_(band.size)));
        painter.setPen(Qt::NoPen);
        painter.setBrush(band.chunk % 2 == 0 ? QColor(238, 241, 246) : QColor(246, 241, 234));
        painter.drawRect(r);
        QString type;
        for (const TraceBuffer& buffer : trace.buffers) {
            if (buffer.allocator == band.allocator) {
                type = qstr(buffer.type_name);
                break;
            }
        }
        const QString text = tr("%1 chunk %2 · %3").arg(type).arg(band.chunk).arg(human_bytes(band.size));
        const QPointF corner(std::max(r.left(), data_area().left()) + 4, std::max(r.top(), data_area().top()) + 2);
        if (const auto box = names.place({QRectF(corner, QSizeF(metrics.horizontalAdvance(text) + 6, metrics.height()))})) {
            titles_.push_back({*box, text});
        }
    }

    // Memory spans, named where the name fits whole (as the SVG render does).
    painter.setRenderHint(QPainter::Antialiasing, false);
    const bool outlines = controller_.timeline().spans().size() < 2000 || scale_x() > 2;
    for (const MemorySpan& span : controller_.timeline().spans()) {
        const QRectF scene = scene_rect_of(span);
        if (!scene.intersects(visible)) {
            continue;
        }
        const QRectF r = map_to_widget(scene);
        painter.setPen(outlines ? QPen(palette::outline, 0.5) : Qt::NoPen);
        painter.setBrush(controller_.color(span.tensor));
        painter.drawRect(r);
        const QString name = qstr(trace.tensor(span.tensor).name);
        const double text_width = metrics.horizontalAdvance(name);
        if (r.height() >= metrics.height() + 2 && r.width() >= text_width + 6) {
            const QRectF box(r.center().x() - text_width / 2 - 1, r.center().y() - metrics.height() / 2, text_width + 2,
                             metrics.height());
            if (names.place({box})) {
                painter.setPen(palette::text);
                painter.drawText(box, Qt::AlignCenter | Qt::TextDontClip, name);
            }
        }
    }
    painter.setRenderHint(QPainter::Antialiasing);
    painter.restore();

    // The strips, then the axes in them.
    const QRectF area = data_area();
    painter.fillRect(QRectF(0, 0, width(), area.top()), palette::background);
    painter.fillRect(QRectF(0, area.bottom(), width(), height() - area.bottom()), palette::background);
    painter.fillRect(QRectF(area.right(), area.top(), width() - area.right(), area.height()), palette::background);
    painter.setPen(QPen(palette::outline, 1));
    painter.drawLine(area.topRight(), area.bottomRight());
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

// Offsets in the right strip, as the SVG's memory axis: where in its chunk a block lies.
// Bands sit close together, so a band's top tick may meet the next band's 0: the lower one
// is kept.
void TimelineView::paint_offset_ticks(QPainter& painter) {
    const QRectF area = data_area();
    LabelPlacer placer(QRectF(area.right(), area.top() - kLane / 2, width() - area.right(), area.height() + kLane));
    const QFontMetricsF metrics(painter.font());
    painter.setPen(palette::muted_text);
    for (const OffsetTick& tick : offset_ticks()) {
        if (tick.y < area.top() || tick.y > area.bottom()) {
            continue;
        }
        painter.drawLine(QPointF(area.right(), tick.y), QPointF(area.right() + 5, tick.y));
        placer.draw(painter, human_bytes(tick.offset), {QPointF(area.right() + 7, tick.y - metrics.height() / 2)});
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
    const QRectF area = data_area();
    const QFontMetricsF metrics(painter.font());
    LabelPlacer placer(QRectF(0, height() - kLane - 2, area.right(), kLane + 2));
    painter.setPen(palette::muted_text);
    const auto first = static_cast<std::size_t>(std::max(0.0, visible.left()) / static_cast<double>(every)) * every;
    for (std::size_t unit = first; static_cast<double>(unit) <= std::min(visible.right(), axis_length()); unit += every) {
        // On the node-step axis the label sits in the middle of its column.
        const double middle = axis_ == TimeAxis::node_steps ? 0.5 : 0.0;
        const double x = map_to_widget(QPointF(static_cast<double>(unit) + middle, 0)).x();
        if (x < area.left() || x > area.right()) {
            continue;
        }
        painter.drawLine(QPointF(x, area.bottom()), QPointF(x, area.bottom() + 4));
        const std::size_t shown = axis_ == TimeAxis::node_steps ? controller_.timeline().step_in_plan(unit) : unit;
        const QString text = QString::number(shown);
        placer.draw(painter, text, {QPointF(x - metrics.horizontalAdvance(text) / 2 - 1, height() - kLane - 1)});
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

    // The peak of live bytes, and the cursor: lines across the data area, labels in their
    // lanes (the peak's and a buffer's at the top, the cursor's at the bottom), right of
    // their line or left of it near the edge.
    const QRectF area = data_area();
    LabelPlacer placer(rect());
    const double line_top = area.top() - 4, line_bottom = area.bottom() + 4;
    const QFontMetricsF metrics(painter.font());
    auto label = [&](double x, double lane_top, const QString& text) {
        const double text_width = metrics.horizontalAdvance(text) + 2;
        const double y = lane_top + (kLane - metrics.height()) / 2;
        placer.draw(painter, text, {QPointF(x + 4, y), QPointF(x - 4 - text_width, y),
                                    QPointF(std::clamp(x - text_width / 2, 0.0, std::max(0.0, width() - text_width - 1)), y)});
    };
    const double peak_x = map_to_widget(QPointF(x_of_position(peak_position_), 0)).x();
    painter.setPen(QPen(QColor(120, 60, 160), 1.5, Qt::DashLine));
    painter.drawLine(QPointF(peak_x, line_top), QPointF(peak_x, line_bottom));
    label(peak_x, 1, tr("peak: %1 live at %2").arg(human_bytes(peak_bytes_)).arg(position_text(peak_position_)));
    if (const BufferPeak* peak = controller_.shown_peak()) {
        // Where go_to_peak stopped: the event that set a buffer's size.
        painter.setPen(QPen(QColor(200, 30, 30), 2));
        const double x = map_to_widget(QPointF(x_of_position(*peak->event + 1), 0)).x();
        painter.drawLine(QPointF(x, line_top + kLane), QPointF(x, line_bottom));
        label(x, 1 + kLane, tr("buffer %1 reaches %2 here").arg(peak->buffer_id).arg(human_bytes(peak->size)));
    }
    const double cursor_x = map_to_widget(QPointF(x_of_position(controller_.position()), 0)).x();
    painter.setPen(QPen(palette::cursor, 2));
    painter.drawLine(QPointF(cursor_x, line_top), QPointF(cursor_x, line_bottom + kLane));
    label(cursor_x, area.bottom() + 3, position_text(controller_.position()));
}

} // namespace gallocsim::gui
