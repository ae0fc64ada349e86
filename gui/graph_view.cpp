#include "gui/graph_view.hpp"

#include "gui/simulation_controller.hpp"
#include "gui/tensor_colors.hpp"
#include "gui/text.hpp"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>

namespace gallocsim::gui {

namespace {

constexpr double kTextScale = 0.45;  // below this zoom, boxes carry no text
constexpr double kEdgeScale = 0.04;  // below this zoom, edges are left out

// "MUL · f32 [64x8]"; a tensor with no op says what it is instead.
QString op_line(const TraceTensor& tensor) {
    QString what = qstr(op_name(tensor.op));
    if (tensor.op == Op::NONE) {
        what = tensor.external                          ? QObject::tr("data")
               : tensor.has_flag(TensorFlag::input)     ? QObject::tr("input")
               : tensor.role == TensorRole::leaf        ? QObject::tr("leaf")
                                                        : QObject::tr("no op");
    }
    return QStringLiteral("%1 · %2 [%3]").arg(what, qstr(type_name(tensor.type)), shape_text(tensor, QLatin1Char('x')));
}

} // namespace

GraphView::GraphView(SimulationController& controller, QWidget* parent) : CanvasView(parent), controller_(controller) {
    setWindowTitle(tr("Graph"));
    connect(&controller_, &SimulationController::graph_changed, this, &GraphView::rebuild);
    connect(&controller_, &SimulationController::position_changed, this, [this] { update(); });
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
    if (box && !rect().contains(box_rect(tensor).toRect())) {
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
    // Far out, antialiasing costs more than it shows.
    painter.setRenderHint(QPainter::Antialiasing, scale_x() >= kTextScale);
    if (scale_x() >= kEdgeScale) {
        paint_edges(painter, visible);
    }
    paint_in_place_bands(painter, boxes);
    const bool with_text = scale_x() >= kTextScale;
    for (std::size_t index : boxes) {
        paint_box(painter, layout_.boxes()[index], with_text);
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
    paint_legend(painter);
}

void GraphView::paint_edges(QPainter& painter, const QRectF& visible) {
    QVector<QLineF> solid, dashed;
    for (const GraphEdge& edge : layout_.edges()) {
        const QRectF& from = layout_.boxes()[edge.from].rect;
        const QRectF& to = layout_.boxes()[edge.to].rect;
        const QPointF a(from.center().x(), from.bottom());
        const QPointF b(to.center().x(), to.top());
        if (!QRectF(a, b).normalized().adjusted(-1, -1, 1, 1).intersects(visible)) {
            continue;
        }
        (edge.view_link ? dashed : solid).append(QLineF(map_to_widget(a), map_to_widget(b)));
    }
    painter.setPen(QPen(QColor(140, 140, 140), 1));
    painter.drawLines(solid);
    painter.setPen(QPen(QColor(120, 120, 160), 1, Qt::DashLine));
    painter.drawLines(dashed);
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
        QColor band = tensor_color(controller_.trace().tensor(now.in_place_of).name);
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
    const QColor own = tensor_color(tensor.name);
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
                                                          : tensor_color(controller_.trace().tensor(tensor.view_src).name).lighter(112))
                          : palette::unallocated;
        pen = QPen(palette::outline, 1, Qt::DashLine);
        break;
    }
    }
    painter.setPen(pen);
    painter.setBrush(fill);
    const double radius = box.is_view ? r.height() / 2 : 4.0;
    if (with_text) {
        painter.drawRoundedRect(r, radius, radius);
    } else {
        painter.drawRect(r);
    }
    if (!with_text) {
        return;
    }
    QFont font = painter.font();
    font.setPixelSize(std::max(6, static_cast<int>(12 * scale_x())));
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

void GraphView::paint_legend(QPainter& painter) {
    struct Entry {
        QString label;
        QColor fill;
        QPen pen;
    };
    const std::array entries{
        Entry{tr("not yet allocated"), palette::unallocated, QPen(palette::muted_text, 1, Qt::DashLine)},
        Entry{tr("live"), tensor_color("live"), QPen(palette::outline, 1)},
        Entry{tr("output"), tensor_color("output"), QPen(palette::outline, 3)},
        Entry{tr("handed over in place"), tensor_color("in place").lighter(125), QPen(palette::outline, 1, Qt::DotLine)},
        Entry{tr("freed"), palette::freed, QPen(palette::muted_text, 1)},
        Entry{tr("external data"), palette::external, QPen(palette::outline, 1)},
        Entry{tr("last step"), Qt::transparent, QPen(palette::highlight, 3)},
    };
    QFont font = this->font();
    font.setPixelSize(11);
    painter.setFont(font);
    const double row = 16;
    const QRectF frame(8, height() - 8 - row * static_cast<double>(entries.size()) - 8, 150, row * static_cast<double>(entries.size()) + 8);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(255, 255, 255, 215));
    painter.drawRoundedRect(frame, 4, 4);
    double y = frame.top() + 4;
    for (const Entry& entry : entries) {
        painter.setPen(entry.pen);
        painter.setBrush(entry.fill);
        painter.drawRect(QRectF(frame.left() + 6, y + 2, 18, row - 5));
        painter.setPen(palette::text);
        painter.drawText(QRectF(frame.left() + 30, y, frame.width() - 34, row), Qt::AlignVCenter | Qt::AlignLeft, entry.label);
        y += row;
    }
}

} // namespace gallocsim::gui
