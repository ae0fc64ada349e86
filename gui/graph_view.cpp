#include "gui/graph_view.hpp"

#include "gui/simulation_controller.hpp"
#include "gui/tensor_color.hpp"
#include "gui/text.hpp"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>

namespace gallocsim::gui {

namespace {

constexpr double kTextScale = 0.45;  // below this zoom, boxes carry no text
constexpr double kEdgeScale = 0.04;  // below this zoom, edges are left out
constexpr double kReadableScale = 0.8;  // where a big graph opens
constexpr double kOverviewScale = 0.5;  // boxes stay this wide when a tall graph is fitted whole
constexpr double kRulerSpacing = 40;    // pixels between node numbers down the edge, at least
constexpr int kLongEdgeLayers = 6;       // edges across more layers are drawn as stubs

// "MUL · f32 [64x8]"; a tensor with no op says what it is instead.
QString op_line(const TraceTensor& tensor) {
    QString what = qstr(op_name(tensor.op));
    if (tensor.op == Op::NONE) {
        what = tensor.external                          ? QObject::tr("data")
               : tensor.has_flag(TensorFlag::input)     ? QObject::tr("input")
               : tensor.role == TensorRole::leaf        ? QObject::tr("leaf")
                                                        : QObject::tr("no op");
    }
    return QStringLiteral("%1 · %2 [%3]").arg(what, qstr(type_name(tensor.type)), qstr(shape_text(tensor, "x")));
}

} // namespace

GraphView::GraphView(SimulationController& controller, QWidget* parent) : CanvasView(parent), controller_(controller) {
    setWindowTitle(tr("Graph"));
    connect(&controller_, &SimulationController::graph_changed, this, &GraphView::rebuild);
    connect(&controller_, &SimulationController::position_changed, this, &GraphView::follow_last_step);
    connect(&controller_, &SimulationController::selection_changed, this, [this](std::optional<TensorId> tensor) {
        if (tensor) {
            reveal(*tensor);
        }
        update();
    });
    rebuild();
}

void GraphView::rebuild() {
    layout_ = controller_.has_graph() ? GraphLayout(controller_.file()) : GraphLayout();
    fit_to_window();
    // A graph too big to read when fitted opens at a readable zoom, at its top; Ctrl+0
    // still shows all of it.
    if (scale_y() < kTextScale && !layout_.boxes().empty()) {
        zoom_by(kReadableScale / scale_y(), rect().center());
        const QRectF first = layout_.boxes().front().rect;
        center_on(QPointF(first.center().x(), first.top() + height() / 2.0 / scale_y() - GraphLayout::kLayerGap));
    }
}

double GraphView::min_scale_x() const { return kOverviewScale; }

void GraphView::set_legend_visible(bool visible) {
    legend_ = visible;
    scene_changed();
}

void GraphView::follow_last_step() {
    // Keep the step's subject in view while stepping or running (reveal moves only when
    // it is off screen, so a fitted graph stays as it is).
    for (TensorId tensor : controller_.last_event_tensors()) {
        if (layout_.box_of(static_cast<std::size_t>(tensor))) {
            reveal(tensor);
            break;
        }
    }
    update();
}

TensorLook GraphView::look_of(TensorId id) const {
    const TraceTensor& tensor = controller_.trace().tensor(id);
    if (tensor.external) {
        return TensorLook::external;
    }
    if (tensor.is_view()) {
        return TensorLook::view;
    }
    switch (controller_.state().tensor(id).life) {
    case TensorLife::none:
        return TensorLook::unallocated;
    case TensorLife::live:
        return tensor.has_flag(TensorFlag::output) ? TensorLook::output : TensorLook::live;
    case TensorLife::handed_over:
        return TensorLook::handed_over;
    case TensorLife::freed:
        return TensorLook::freed;
    }
    return TensorLook::unallocated;
}

QRectF GraphView::box_rect(TensorId tensor) const {
    const auto box = layout_.box_of(static_cast<std::size_t>(tensor));
    return box ? map_to_widget(layout_.boxes()[*box].rect) : QRectF();
}

void GraphView::reveal(TensorId tensor) {
    const auto box = layout_.box_of(static_cast<std::size_t>(tensor));
    if (box && !rect().contains(box_rect(tensor).toAlignedRect())) {
        center_on(layout_.boxes()[*box].rect.center());
    }
}

std::optional<std::size_t> GraphView::tensor_at(QPointF widget_pos) const {
    const auto box = layout_.box_at(map_to_scene(widget_pos));
    return box ? std::optional(layout_.boxes()[*box].tensor) : std::nullopt;
}

void GraphView::paint_scene(QPainter& painter) {
    if (!controller_.has_graph()) {
        painter.setPen(palette::muted_text);
        painter.drawText(rect(), Qt::AlignCenter, tr("Open a graph file or an example"));
        return;
    }
    const QRectF visible = visible_scene_rect();
    const std::vector<std::size_t> boxes = layout_.boxes_in(visible);
    // A tall graph fitted whole is squeezed along y: the smaller scale decides the detail.
    const double scale = std::min(scale_x(), scale_y());
    // Far out, antialiasing costs more than it shows.
    painter.setRenderHint(QPainter::Antialiasing, scale >= kTextScale);
    if (scale >= kEdgeScale) {
        paint_edges(painter, visible);
    }
    paint_in_place_bands(painter, boxes);
    const bool with_text = scale >= kTextScale;
    for (std::size_t index : boxes) {
        paint_box(painter, layout_.boxes()[index], with_text);
    }
    if (!with_text) {
        paint_node_ruler(painter, boxes);  // the boxes in view, found once per paint
    }

    // The last step's tensors in orange (the first one, the event's subject, heavier),
    // the selection in blue.
    painter.setBrush(Qt::NoBrush);
    const auto touched = controller_.last_event_tensors();
    for (std::size_t i = 0; i < touched.size(); ++i) {
        const QRectF r = box_rect(touched[i]);
        if (!r.isEmpty()) {
            painter.setPen(QPen(palette::highlight, i == 0 ? 4 : 2.5));
            painter.drawRoundedRect(r.adjusted(-3, -3, 3, 3), 6, 6);
        }
    }
    if (const auto selected = controller_.selected()) {
        const QRectF r = box_rect(*selected);
        if (!r.isEmpty()) {
            painter.setPen(QPen(palette::selection, 2.5, Qt::DashLine));
            painter.drawRoundedRect(r.adjusted(-6, -6, 6, 6), 8, 8);
        }
    }
    painter.setRenderHint(QPainter::Antialiasing);
    if (legend_) {
        paint_legend(painter);
    }
}

void GraphView::paint_edges(QPainter& painter, const QRectF& visible) {
    // An edge across many layers (a weight or an input that every layer reads) would
    // stack with its siblings into a dark wall; it is drawn whole only when one of its
    // ends is selected or in the last step, else as two short stubs.
    std::vector<bool> focus(controller_.trace().tensors.size(), false);
    for (TensorId tensor : controller_.last_event_tensors()) {
        focus[static_cast<std::size_t>(tensor)] = true;
    }
    if (const auto selected = controller_.selected()) {
        focus[static_cast<std::size_t>(*selected)] = true;
    }
    QVector<QLineF> solid, dashed, focused;
    for (const GraphEdge& edge : layout_.edges()) {
        const GraphBox& from = layout_.boxes()[edge.from];
        const GraphBox& to = layout_.boxes()[edge.to];
        const QPointF a(from.rect.center().x(), from.rect.bottom());
        const QPointF b(to.rect.center().x(), to.rect.top());
        if (!QRectF(a, b).normalized().adjusted(-1, -1, 1, 1).intersects(visible)) {
            continue;
        }
        const QLineF line(map_to_widget(a), map_to_widget(b));
        if (focus[from.tensor] || focus[to.tensor]) {
            focused.append(line);
        } else if (to.layer - from.layer > kLongEdgeLayers) {
            const double stub = std::min(14.0, line.length() / 2);
            QLineF start = line;
            start.setLength(stub);
            QLineF end(line.p2(), line.p1());
            end.setLength(stub);
            solid << start << end;
        } else {
            (edge.view_link ? dashed : solid).append(line);
        }
    }
    painter.setPen(QPen(QColor(140, 140, 140), 1));
    painter.drawLines(solid);
    painter.setPen(QPen(QColor(120, 120, 160), 1, Qt::DashLine));
    painter.drawLines(dashed);
    painter.setPen(QPen(palette::highlight.darker(115), 1.5));
    painter.drawLines(focused);
}

// A node that took its parent's memory in place is joined to it by a band in the colour
// of that memory, so the shared bytes read as one piece.
void GraphView::paint_in_place_bands(QPainter& painter, const std::vector<std::size_t>& boxes) {
    const SimState& state = controller_.state();
    for (std::size_t index : boxes) {
        const GraphBox& box = layout_.boxes()[index];
        const TensorState& now = state.tensor(static_cast<TensorId>(box.tensor));
        if (now.in_place_of == kNoTensor || now.life != TensorLife::live) {
            continue;
        }
        const QRectF child = map_to_widget(box.rect);
        const QRectF parent = box_rect(now.in_place_of);
        if (parent.isEmpty()) {
            continue;
        }
        QColor band = controller_.color(now.in_place_of);
        band.setAlpha(170);
        const double width = std::max(3.0, child.width() * 0.18);
        painter.setPen(QPen(band, width, Qt::SolidLine, Qt::FlatCap));
        painter.drawLine(QPointF(parent.center().x(), parent.bottom()), QPointF(child.center().x(), child.top()));
    }
}

void GraphView::paint_box(QPainter& painter, const GraphBox& box, bool with_text) {
    const auto id = static_cast<TensorId>(box.tensor);
    const TraceTensor& tensor = controller_.trace().tensor(id);
    const QRectF r = map_to_widget(box.rect);
    const QColor& own = controller_.color(id);
    QColor fill = own;
    QPen pen(palette::outline, 1);
    QColor text = palette::text;
    switch (look_of(id)) {
    case TensorLook::unallocated:
        fill = palette::unallocated;
        pen = QPen(palette::muted_text, 1, Qt::DashLine);
        break;
    case TensorLook::live:
        break;
    case TensorLook::output:
        pen = QPen(palette::outline, 3);
        break;
    case TensorLook::handed_over:
        fill = own.lighter(125);
        fill.setAlpha(110);
        pen = QPen(own.darker(150), 1, Qt::DotLine);
        text = palette::muted_text;
        break;
    case TensorLook::freed:
        fill = palette::freed;
        pen = QPen(palette::muted_text, 1);
        text = palette::muted_text;
        break;
    case TensorLook::external:
        fill = palette::external;
        text = Qt::white;
        break;
    case TensorLook::view: {
        // A view has no memory of its own: it shows its root's, when the root has some.
        const TensorLook root = look_of(tensor.view_src);
        const bool root_holds = root == TensorLook::live || root == TensorLook::output || root == TensorLook::external;
        fill = root_holds ? (root == TensorLook::external ? palette::external.lighter(160)
                                                          : controller_.color(tensor.view_src).lighter(112))
                          : palette::unallocated;
        pen = QPen(palette::outline, 1, Qt::DashLine);
        break;
    }
    }
    if (!with_text) {
        // Far out, a box is a few pixels: a plain fill (grey for not yet allocated, which
        // would vanish in white) draws several times faster than an outlined shape. A box
        // squeezed below a pixel is still drawn as a one-pixel stripe.
        painter.fillRect(QRectF(r.left(), r.top(), r.width(), std::max(1.0, r.height())),
                         fill == palette::unallocated ? palette::freed.lighter(108) : fill);
        return;
    }
    painter.setPen(pen);
    painter.setBrush(fill);
    const double radius = box.is_view ? r.height() / 2 : 4.0;
    painter.drawRoundedRect(r, radius, radius);
    QFont font = painter.font();
    font.setPixelSize(std::max(6, static_cast<int>(12 * std::min(scale_x(), scale_y()))));
    font.setBold(!box.is_view);
    painter.setFont(font);
    painter.setPen(text);
    const QRectF inner = r.adjusted(6 * scale_x(), 2, -6 * scale_x(), -2);
    const QFontMetricsF metrics(font);
    const QString name = metrics.elidedText(qstr(tensor.name), Qt::ElideMiddle, inner.width());
    if (box.is_view) {
        painter.drawText(inner, Qt::AlignCenter, name);
        return;
    }
    painter.drawText(QRectF(inner.left(), inner.top(), inner.width(), inner.height() / 2), Qt::AlignLeft | Qt::AlignBottom,
                     name);
    font.setBold(false);
    painter.setFont(font);
    painter.drawText(QRectF(inner.left(), inner.center().y(), inner.width(), inner.height() / 2),
                     Qt::AlignLeft | Qt::AlignTop, metrics.elidedText(op_line(tensor), Qt::ElideRight, inner.width()));
}

std::vector<GraphView::RulerMark> GraphView::node_ruler() const {
    return ruler_marks(layout_.boxes_in(visible_scene_rect()));
}

std::vector<GraphView::RulerMark> GraphView::ruler_marks(const std::vector<std::size_t>& boxes) const {
    std::vector<RulerMark> candidates;
    const Trace& trace = controller_.trace();
    for (std::size_t index : boxes) {
        const GraphBox& box = layout_.boxes()[index];
        const TraceTensor& tensor = trace.tensor(static_cast<TensorId>(box.tensor));
        if (tensor.role == TensorRole::node) {
            candidates.push_back({tensor.position, map_to_widget(box.rect.center()).y()});
        }
    }
    if (candidates.empty()) {
        return {};
    }
    // Round numbers (1, 2, 5, 10, 20, 50, ...) far enough apart for their labels.
    const double pixels_per_node = scale_y() * layout_.bounds().height() / static_cast<double>(std::max<std::size_t>(1, trace.node_count));
    int every = 1;
    for (int decade = 1; every * pixels_per_node < kRulerSpacing; decade *= 10) {
        for (int step : {1, 2, 5}) {
            every = step * decade;
            if (every * pixels_per_node >= kRulerSpacing) {
                break;
            }
        }
    }
    std::ranges::sort(candidates, {}, &RulerMark::y);
    std::vector<RulerMark> marks;
    for (const RulerMark& mark : candidates) {
        if (mark.node % every == 0 && (marks.empty() || mark.y - marks.back().y >= kRulerSpacing / 2)) {
            marks.push_back(mark);
        }
    }
    return marks;
}

// Far out, boxes carry no names: node numbers down the left edge say where a stripe is.
void GraphView::paint_node_ruler(QPainter& painter, const std::vector<std::size_t>& boxes) {
    QFont font = painter.font();
    font.setPixelSize(11);
    painter.setFont(font);
    const QFontMetricsF metrics(font);
    for (const RulerMark& mark : ruler_marks(boxes)) {
        const QString label = tr("node %1").arg(mark.node);
        const QRectF text(4, mark.y - 8, metrics.horizontalAdvance(label) + 6, 16);
        painter.fillRect(text, QColor(255, 255, 255, 210));
        painter.setPen(palette::muted_text);
        painter.drawText(text.adjusted(3, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
        painter.drawLine(QPointF(text.right(), mark.y), QPointF(text.right() + 6, mark.y));
    }
}

namespace {

// Legend entries flow in rows along the bottom edge of the view.
constexpr double kLegendRow = 16;
constexpr double kLegendSwatch = 18;
constexpr double kLegendGap = 14;

struct LegendEntry {
    QString label;
    QBrush fill;
    QPen pen;
};

std::vector<LegendEntry> legend_entries() {
    // Live tensors come in their own colours: the swatch shows a few of them.
    QLinearGradient own(0, 0, kLegendSwatch, 0);
    own.setColorAt(0.0, tensor_color("a"));
    own.setColorAt(0.5, tensor_color("b"));
    own.setColorAt(1.0, tensor_color("mul"));
    return {
        {QObject::tr("not yet allocated"), palette::unallocated, QPen(palette::muted_text, 1, Qt::DashLine)},
        {QObject::tr("live (own colour)"), own, QPen(palette::outline, 1)},
        {QObject::tr("output"), own, QPen(palette::outline, 3)},
        {QObject::tr("handed over in place"), QColor(235, 235, 235), QPen(palette::outline, 1, Qt::DotLine)},
        {QObject::tr("freed"), palette::freed, QPen(palette::muted_text, 1)},
        {QObject::tr("external data"), palette::external, QPen(palette::outline, 1)},
        {QObject::tr("view"), QColor(235, 235, 235), QPen(palette::outline, 1, Qt::DashLine)},
        {QObject::tr("last step"), Qt::NoBrush, QPen(palette::highlight, 3)},
    };
}

QFont legend_font(const QFont& base) {
    QFont font = base;
    font.setPixelSize(11);
    return font;
}

// Where each entry goes for a view `width` wide; y from 0, rows of kLegendRow.
std::vector<QPointF> legend_positions(const std::vector<LegendEntry>& entries, const QFont& font, double width) {
    const QFontMetricsF metrics(font);
    std::vector<QPointF> positions;
    double x = 0, y = 0;
    for (const LegendEntry& entry : entries) {
        const double w = kLegendSwatch + 5 + metrics.horizontalAdvance(entry.label) + kLegendGap;
        if (x > 0 && x + w > width) {
            x = 0;
            y += kLegendRow;
        }
        positions.emplace_back(x, y);
        x += w;
    }
    return positions;
}

} // namespace

double GraphView::legend_height() const {
    if (!legend_) {
        return 0;
    }
    const auto positions = legend_positions(legend_entries(), legend_font(font()), width() - 16.0);
    return positions.back().y() + kLegendRow + 8;
}

void GraphView::paint_legend(QPainter& painter) {
    const auto entries = legend_entries();
    const QFont font = legend_font(this->font());
    const auto positions = legend_positions(entries, font, width() - 16.0);
    const double height = legend_height();
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(255, 255, 255, 225));
    painter.drawRect(QRectF(0, this->height() - height, width(), height));
    painter.setFont(font);
    const QPointF origin(8, this->height() - height + 4);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const QPointF at = origin + positions[i];
        const QRectF swatch(at.x(), at.y() + 2, kLegendSwatch, kLegendRow - 5);
        painter.setPen(entries[i].pen);
        painter.setBrush(entries[i].fill);
        painter.setBrushOrigin(swatch.topLeft());
        painter.drawRect(swatch);
        painter.setPen(palette::text);
        painter.drawText(QRectF(at.x() + kLegendSwatch + 5, at.y(), width(), kLegendRow), Qt::AlignVCenter | Qt::AlignLeft,
                         entries[i].label);
    }
    painter.setBrushOrigin(0, 0);
}

} // namespace gallocsim::gui
