#include "gui/memory_map_view.hpp"

#include "gui/label_placer.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/tensor_color.hpp"
#include "gui/text.hpp"
#include "simulator/trace/explain.hpp"

#include <QPainter>

#include <algorithm>
#include <type_traits>

namespace gallocsim::gui {

namespace {

// A buffer's heading is two lines: its type and ids, then its figures. A chunk's row: its
// label, a line for "free list before this event" and the strip it names, the bar, and a gap
// that says how a free merged. Every label is drawn whole or not at all.
constexpr double kHeadingLine = 17;
constexpr double kHeadingHeight = 2 * kHeadingLine + 2;
constexpr double kLabelHeight = 16;
constexpr double kBeforeLabelHeight = 12;
constexpr double kBeforeHeight = 10;
const QString kFreeListBefore = QStringLiteral("free list before this event ▾");
constexpr double kBarHeight = 36;
constexpr double kRowGap = 14;
constexpr double kChunkRowHeight = kLabelHeight + kBeforeLabelHeight + kBeforeHeight + kBarHeight + kRowGap;

// The bytes the last step took or gave back, and, for a free, how it merged.
struct StepMark {
    MemoryRange range;
    bool freed = false;
    MergeKind merge = MergeKind::none;
    FreeBlock merged{};  // the free block a free ended up in
};

std::optional<StepMark> mark_of(const Trace& trace, const TraceEvent& event) {
    const auto range = touched_memory(trace, event);
    if (!range) {
        return std::nullopt;
    }
    StepMark mark{*range};
    auto merged = [&](const FreeDecision& decision) {
        mark.freed = true;
        mark.merge = decision.merge;
        mark.merged = decision.result;
    };
    if (const auto* freed = std::get_if<Recorded<event::TensorFreed>>(&event.data)) {
        merged(trace.freed(*freed));
    } else if (const auto* extra = std::get_if<Recorded<event::ExtraSpaceFreed>>(&event.data)) {
        merged(trace.freed(*extra));
    }
    return mark;
}

QString merge_text(MergeKind merge) {
    switch (merge) {
    case MergeKind::none:
        return QObject::tr("freed: a new free block");
    case MergeKind::previous:
        return QObject::tr("freed: merged with the free block before it");
    case MergeKind::next:
        return QObject::tr("freed: merged with the free block after it");
    case MergeKind::both:
        return QObject::tr("freed: merged with the free blocks on both sides");
    }
    return {};
}

const std::vector<FreeBlock>* free_list(const SimState& state, int allocator, int chunk) {
    const auto& chunks = state.allocators.at(static_cast<std::size_t>(allocator)).chunks;
    return chunk < static_cast<int>(chunks.size()) ? &chunks[static_cast<std::size_t>(chunk)].free_blocks : nullptr;
}

} // namespace

MemoryMapView::MemoryMapView(SimulationController& controller, QWidget* parent)
    : CanvasView(parent), controller_(controller) {
    setWindowTitle(tr("Memory map"));
    connect(&controller_, &SimulationController::graph_changed, this, &MemoryMapView::rebuild);
    connect(&controller_, &SimulationController::position_changed, this, [this] { update(); });
    connect(&controller_, &SimulationController::selection_changed, this, [this] { update(); });
    rebuild();
}

void MemoryMapView::rebuild() {
    rows_.clear();
    widest_ = 1;
    double y = 0;
    if (controller_.has_graph()) {
        const Trace& trace = controller_.trace();
        for (int allocator = 0; allocator < trace.allocator_count; ++allocator) {
            rows_.push_back({allocator, -1, y, 0});
            y += kHeadingHeight;
            for (const ChunkExtent& extent : controller_.timeline().chunks()) {
                if (extent.allocator == allocator) {
                    rows_.push_back({allocator, extent.chunk, y, extent.size});
                    widest_ = std::max(widest_, extent.size);
                    y += kChunkRowHeight;
                }
            }
        }
    }
    scale_ = OffsetScale(scale_.kind(), widest_);
    height_ = y;
    fit_to_window();
}

void MemoryMapView::set_offset_scale(OffsetScaleKind kind) {
    if (kind != scale_.kind()) {
        scale_ = OffsetScale(kind, widest_);
        fit_to_window();
    }
}

QRectF MemoryMapView::scene_bounds() const {
    return {0, 0, scale_(widest_), std::max(height_, 1.0)};
}

QRectF MemoryMapView::bar_rect(const Row& row) const {
    const double top = row.top + kLabelHeight + kBeforeLabelHeight + kBeforeHeight;
    return map_to_widget(QRectF(0, top, scale_(row.size), kBarHeight));
}

QRectF MemoryMapView::visible_part(QRectF r) const {
    const double left = std::max(r.left(), 4.0), right = std::min(r.right(), width() - 4.0);
    return {left, r.top(), std::max(0.0, right - left), r.height()};
}

bool MemoryMapView::draw_label(QPainter& painter, const QRectF& box, int flags, const QString& text) const {
    return draw_whole(painter, box.intersected(QRectF(rect())), flags, text);
}

QRectF MemoryMapView::byte_range(const Row& row, std::size_t offset, std::size_t size) const {
    const QRectF bar = bar_rect(row);
    const double left = map_to_widget(QPointF(scale_(offset), 0)).x();
    const double right = map_to_widget(QPointF(scale_(std::min(offset + size, std::max(row.size, offset))), 0)).x();
    return {left, bar.top(), std::max(right - left, 1.0), bar.height()};
}

QRectF MemoryMapView::block_rect(TensorId tensor) const {
    if (!controller_.has_graph()) {
        return {};
    }
    const MemorySpan* span = controller_.timeline().span_at(tensor, controller_.position());
    if (span == nullptr || !span->live_at(controller_.position())) {
        return {};
    }
    for (const Row& row : rows_) {
        if (row.allocator == span->allocator && row.chunk == span->address.chunk) {
            return byte_range(row, span->address.offset, span->size);
        }
    }
    return {};
}

std::optional<std::size_t> MemoryMapView::tensor_at(QPointF widget_pos) const {
    if (!controller_.has_graph()) {
        return std::nullopt;
    }
    const std::size_t position = controller_.position();
    for (const MemorySpan& span : controller_.timeline().spans()) {
        if (span.live_at(position) && block_rect(span.tensor).contains(widget_pos)) {
            return static_cast<std::size_t>(span.tensor);
        }
    }
    return std::nullopt;
}

void MemoryMapView::paint_scene(QPainter& painter) {
    if (!controller_.has_graph()) {
        return;
    }
    const QRectF visible = visible_scene_rect();
    for (const Row& row : rows_) {
        const double bottom = row.top + (row.chunk < 0 ? kHeadingHeight : kChunkRowHeight);
        if (bottom < visible.top() || row.top > visible.bottom()) {
            continue;
        }
        row.chunk < 0 ? paint_heading(painter, row) : paint_chunk(painter, row);
    }
}

void MemoryMapView::paint_heading(QPainter& painter, const Row& row) {
    const Trace& trace = controller_.trace();
    QStringList ids;
    QString type;
    for (std::size_t id = 0; id < trace.buffers.size(); ++id) {
        if (trace.buffers[id].allocator == row.allocator) {
            ids << QString::number(id);
            type = qstr(trace.buffers[id].type_name);
        }
    }
    const AllocatorState& now = controller_.state().allocators.at(static_cast<std::size_t>(row.allocator));
    const MemoryStats stats = memory_stats(now);
    QFont font = this->font();
    font.setPixelSize(13);
    font.setBold(true);
    painter.setFont(font);
    painter.setPen(palette::text);
    const double y = map_to_widget(QPointF(0, row.top)).y();
    const double line_width = std::max(0.0, width() - 16.0);
    draw_label(painter, QRectF(8, y, line_width, kHeadingLine), Qt::AlignLeft | Qt::AlignVCenter,
               tr("%1 (buffer %2)").arg(type, ids.join(", ")));
    font.setPixelSize(12);
    font.setBold(false);
    painter.setFont(font);
    const bool has_chunks =
        std::any_of(rows_.begin(), rows_.end(), [&](const Row& r) { return r.allocator == row.allocator && r.chunk >= 0; });
    draw_label(painter, QRectF(8, y + kHeadingLine, line_width, kHeadingLine), Qt::AlignLeft | Qt::AlignVCenter,
               has_chunks ? tr("%1 live, high water %2").arg(human_bytes(stats.live_bytes), human_bytes(stats.high_water))
                          : tr("no tensor is planned here"));
}

void MemoryMapView::paint_free_blocks(QPainter& painter, const std::vector<FreeBlock>& blocks, std::size_t limit,
                                      QRectF band) {
    for (const FreeBlock& block : blocks) {
        if (block.offset >= limit) {
            continue;
        }
        const double left = map_to_widget(QPointF(scale_(block.offset), 0)).x();
        const double right = map_to_widget(QPointF(scale_(std::min(block.end(), limit)), 0)).x();
        const QRectF r(left, band.top(), std::max(right - left, 1.0), band.height());
        painter.setPen(QPen(palette::hatch, 1));
        painter.setBrush(palette::free_block);
        painter.drawRect(r);
        painter.setBrush(QBrush(palette::hatch, Qt::BDiagPattern));
        painter.drawRect(r);
    }
}

void MemoryMapView::paint_chunk(QPainter& painter, const Row& row) {
    const Trace& trace = controller_.trace();
    const SimState& state = controller_.state();
    const std::size_t position = controller_.position();
    const QRectF bar = bar_rect(row);
    const auto& chunks = state.allocators.at(static_cast<std::size_t>(row.allocator)).chunks;
    const bool exists = row.chunk < static_cast<int>(chunks.size());
    const std::size_t high_water = exists ? chunks[static_cast<std::size_t>(row.chunk)].high_water : 0;

    QFont font = this->font();
    font.setPixelSize(11);
    painter.setFont(font);
    painter.setPen(palette::text);
    const QString label = exists ? tr("chunk %1: high water %2 of %3")
                                       .arg(row.chunk)
                                       .arg(human_bytes(high_water), human_bytes(row.size))
                                 : tr("chunk %1: not created yet").arg(row.chunk);
    // Labels stay over the part of the bar in view when it is zoomed or panned.
    const QRectF shown_bar = visible_part(bar);
    const double label_top = bar.top() - kBeforeHeight - kBeforeLabelHeight - kLabelHeight;
    draw_label(painter, QRectF(shown_bar.left(), label_top, width() - 4 - shown_bar.left(), kLabelHeight),
               Qt::AlignLeft | Qt::AlignVCenter, label);

    // Bytes the chunk does not use yet: blank; free blocks below the high-water mark: hatched.
    painter.setPen(QPen(palette::outline, 1));
    painter.setBrush(exists ? QColor(255, 255, 255) : QColor(245, 245, 245));
    painter.drawRect(bar);
    if (!exists) {
        return;
    }
    paint_free_blocks(painter, chunks[static_cast<std::size_t>(row.chunk)].free_blocks, high_water, bar);

    // Live tensors.
    for (const MemorySpan& span : controller_.timeline().spans()) {
        if (span.allocator != row.allocator || span.address.chunk != row.chunk || !span.live_at(position)) {
            continue;
        }
        const QRectF block = byte_range(row, span.address.offset, span.size);
        const std::string& name = trace.tensor(span.tensor).name;
        painter.setPen(QPen(palette::outline, 1));
        painter.setBrush(controller_.color(span.tensor));
        painter.drawRect(block);
        // The name and the offset, each where it fits whole (the tooltip has both).
        const QRectF text = visible_part(block).adjusted(4, 3, -3, -3);
        painter.setPen(palette::text);
        draw_label(painter, text, Qt::AlignLeft | Qt::AlignTop, qstr(name));
        painter.setPen(palette::text.lighter(200));
        draw_label(painter, text, Qt::AlignLeft | Qt::AlignBottom, QStringLiteral("@%1").arg(span.address.offset));
    }

    // The high-water mark.
    const double mark_x = map_to_widget(QPointF(scale_(high_water), 0)).x();
    painter.setPen(QPen(palette::cursor, 2, Qt::DashLine));
    painter.drawLine(QPointF(mark_x, bar.top() - 4), QPointF(mark_x, bar.bottom() + 4));

    paint_last_step(painter, row, bar);
    if (const BufferPeak* peak = controller_.shown_peak(); peak != nullptr && trace.buffer(peak->buffer_id).allocator == row.allocator) {
        paint_peak(painter, row, *peak);
    }

    if (const auto selected = controller_.selected()) {
        const MemorySpan* span = controller_.timeline().span_at(*selected, position);
        if (span != nullptr && span->live_at(position) && span->allocator == row.allocator && span->address.chunk == row.chunk) {
            painter.setPen(QPen(palette::selection, 2.5, Qt::DashLine));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(byte_range(row, span->address.offset, span->size).adjusted(-3, -3, 3, 3));
        }
    }
}

void MemoryMapView::paint_peak(QPainter& painter, const Row& row, const BufferPeak& peak) {
    static const QColor kPeak(200, 30, 30);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(kPeak, 2.5));
    for (const PeakTensor& live : peak.live) {
        if (live.address.chunk == row.chunk) {
            painter.drawRect(byte_range(row, live.address.offset, live.bytes).adjusted(-1, -1, 1, 1));
        }
    }
    QFont font = painter.font();
    font.setPixelSize(9);
    painter.setFont(font);
    for (const PeakHole& hole : peak.holes) {
        if (hole.chunk != row.chunk) {
            continue;
        }
        const QRectF r = byte_range(row, hole.offset, hole.size);
        painter.setPen(QPen(kPeak, 1.5, Qt::DashLine));
        painter.setBrush(QBrush(kPeak, Qt::DiagCrossPattern));
        painter.drawRect(r);
        const std::optional<std::size_t> completed = hole.completed_at();
        const QString text = completed ? tr("hole %1, complete at event %2").arg(human_bytes(hole.size)).arg(*completed + 1)
                                       : tr("hole %1").arg(human_bytes(hole.size));
        painter.setPen(kPeak.darker(150));
        draw_label(painter, visible_part(r).adjusted(3, 0, -3, 0), Qt::AlignCenter, text);
    }
}

void MemoryMapView::paint_last_step(QPainter& painter, const Row& row, QRectF bar) {
    const TraceEvent* event = controller_.cursor().last_event();
    if (event == nullptr) {
        return;
    }
    const Trace& trace = controller_.trace();
    const auto mark = mark_of(trace, *event);
    if (!mark || trace.buffer(mark->range.buffer_id).allocator != row.allocator || mark->range.chunk != row.chunk) {
        return;
    }
    // Before: the free list as it was, when the step changed it.
    const auto* before = free_list(controller_.state_before(), row.allocator, row.chunk);
    const auto* after = free_list(controller_.state(), row.allocator, row.chunk);
    if (before != nullptr && after != nullptr && *before != *after) {
        const QRectF strip(bar.left(), bar.top() - kBeforeHeight, bar.width(), kBeforeHeight - 2);
        const auto& chunks_before = controller_.state_before().allocators.at(static_cast<std::size_t>(row.allocator)).chunks;
        const std::size_t limit = std::max(chunks_before[static_cast<std::size_t>(row.chunk)].high_water,
                                           controller_.state().allocators.at(static_cast<std::size_t>(row.allocator))
                                               .chunks[static_cast<std::size_t>(row.chunk)]
                                               .high_water);
        painter.setPen(QPen(palette::muted_text, 1));
        painter.setBrush(Qt::white);
        // The strip spans the bytes below the high-water mark; free ones are hatched.
        const double limit_x = map_to_widget(QPointF(scale_(limit), 0)).x();
        painter.drawRect(QRectF(strip.left(), strip.top(), limit_x - strip.left(), strip.height()));
        paint_free_blocks(painter, *before, limit, strip);
        QFont font = painter.font();
        font.setPixelSize(9);
        painter.setFont(font);
        painter.setPen(palette::muted_text);
        const QRectF shown_bar = visible_part(bar);
        draw_label(painter, QRectF(shown_bar.left(), strip.top() - kBeforeLabelHeight, shown_bar.width(), kBeforeLabelHeight),
                   Qt::AlignLeft | Qt::AlignVCenter, kFreeListBefore);
    }
    painter.setBrush(Qt::NoBrush);
    if (mark->freed && mark->merge != MergeKind::none) {
        // The merged block, with ticks where the old boundaries were.
        painter.setPen(QPen(palette::highlight, 2, Qt::DashLine));
        const QRectF merged = byte_range(row, mark->merged.offset, mark->merged.size);
        painter.drawRect(merged.adjusted(-1, -1, 1, 1));
        for (std::size_t boundary : {mark->range.offset, mark->range.offset + mark->range.size}) {
            if (boundary > mark->merged.offset && boundary < mark->merged.end()) {
                const double x = map_to_widget(QPointF(scale_(boundary), 0)).x();
                painter.drawLine(QPointF(x, bar.top() - 4), QPointF(x, bar.bottom() + 4));
            }
        }
    }
    painter.setPen(QPen(palette::highlight, 3, mark->freed ? Qt::DashLine : Qt::SolidLine));
    painter.drawRect(byte_range(row, mark->range.offset, mark->range.size).adjusted(-1.5, -1.5, 1.5, 1.5));
    if (mark->freed) {
        QFont font = painter.font();
        font.setPixelSize(11);
        painter.setFont(font);
        painter.setPen(palette::highlight.darker(140));
        const QRectF shown_bar = visible_part(bar);
        draw_label(painter, QRectF(shown_bar.left(), bar.bottom() + 1, shown_bar.width(), kRowGap), Qt::AlignLeft | Qt::AlignTop,
                   merge_text(mark->merge));
    }
}

} // namespace gallocsim::gui
