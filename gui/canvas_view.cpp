#include "gui/canvas_view.hpp"

#include "gui/tensor_color.hpp"

#include <QFile>
#include <QImage>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QSvgGenerator>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace gallocsim::gui {

namespace {
constexpr double kMinScale = 1e-12;
constexpr double kMaxScale = 1e6;
constexpr int kDragThreshold = 4;  // pixels the pointer moves before a press becomes a pan
} // namespace

CanvasView::CanvasView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAutoFillBackground(false);
    setMinimumSize(120, 80);
}

QPointF CanvasView::map_to_widget(QPointF scene) const {
    return {(scene.x() - origin_.x()) * scale_x_, (scene.y() - origin_.y()) * scale_y_};
}

QPointF CanvasView::map_to_scene(QPointF widget) const {
    return {origin_.x() + widget.x() / scale_x_, origin_.y() + widget.y() / scale_y_};
}

QRectF CanvasView::map_to_widget(const QRectF& scene) const {
    return {map_to_widget(scene.topLeft()), map_to_widget(scene.bottomRight())};
}

QRectF CanvasView::visible_scene_rect() const {
    return {map_to_scene(QPointF(0, 0)), map_to_scene(QPointF(width(), height()))};
}

void CanvasView::fit_to_window() {
    fitted_ = true;
    apply_fit();
    update();
}

void CanvasView::apply_fit() {
    const QRectF bounds = scene_bounds();
    const QMarginsF margins = fit_margins();
    const QRectF target = QRectF(rect()).marginsRemoved(margins);
    if (bounds.width() <= 0 || bounds.height() <= 0 || target.width() <= 0 || target.height() <= 0) {
        scale_x_ = scale_y_ = 1.0;
        origin_ = bounds.topLeft() - QPointF(margins.left(), margins.top());
        return;
    }
    double sx = target.width() / bounds.width();
    double sy = fit_height() ? target.height() / bounds.height() : 1.0;
    if (uniform_zoom()) {
        const double both = std::min({sx, sy, 1.25});  // never blow a small graph up much past its size
        x_floor_ = std::min(sx, min_scale_x());
        sx = std::max(both, x_floor_);
        sy = both;
    }
    scale_x_ = std::clamp(sx, kMinScale, kMaxScale);
    scale_y_ = std::clamp(sy, kMinScale, kMaxScale);
    // Centre the scene in the target area (along y only when it is scaled to fit).
    const double extra_x = target.width() - bounds.width() * scale_x_;
    const double extra_y = fit_height() || uniform_zoom() ? target.height() - bounds.height() * scale_y_ : 0.0;
    origin_ = QPointF(bounds.left() - (margins.left() + extra_x / 2) / scale_x_,
                      bounds.top() - (margins.top() + std::max(0.0, extra_y) / 2) / scale_y_);
}

void CanvasView::scene_changed() {
    if (fitted_) {
        apply_fit();
    }
    update();
}

void CanvasView::zoom_by(double factor, QPointF widget_anchor) {
    const QPointF anchor = map_to_scene(widget_anchor);
    if (uniform_zoom()) {
        // y leads; x follows it down to its floor (a squeezed scene widens back to uniform).
        scale_y_ = std::clamp(scale_y_ * factor, kMinScale, kMaxScale);
        scale_x_ = std::max(scale_y_, x_floor_);
    } else {
        scale_x_ = std::clamp(scale_x_ * factor, kMinScale, kMaxScale);
    }
    // Keep the scene point under the anchor where it was.
    origin_ = QPointF(anchor.x() - widget_anchor.x() / scale_x_, anchor.y() - widget_anchor.y() / scale_y_);
    fitted_ = false;
    update();
}

void CanvasView::zoom_offsets_by(double factor, QPointF widget_anchor) {
    const auto axis = offset_axis();
    if (!axis) {
        zoom_by(factor, widget_anchor);
        return;
    }
    const QPointF anchor = map_to_scene(widget_anchor);
    double& scale = *axis == Qt::Horizontal ? scale_x_ : scale_y_;
    scale = std::clamp(scale * factor, kMinScale, kMaxScale);
    origin_ = QPointF(anchor.x() - widget_anchor.x() / scale_x_, anchor.y() - widget_anchor.y() / scale_y_);
    fitted_ = false;
    update();
}

void CanvasView::center_on(QPointF scene) {
    origin_ = QPointF(scene.x() - width() / 2.0 / scale_x_, scene.y() - height() / 2.0 / scale_y_);
    fitted_ = false;
    update();
}

void CanvasView::render_view(QPainter& painter) {
    painter.fillRect(rect(), palette::background);
    paint_scene(painter);
}

bool CanvasView::export_png(const QString& path) {
    const qreal ratio = devicePixelRatioF();
    QImage image(size() * ratio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(ratio);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        render_view(painter);
    }
    return image.save(path, "PNG");
}

bool CanvasView::export_svg(const QString& path) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size());
    generator.setViewBox(QRect(QPoint(0, 0), size()));
    generator.setTitle(windowTitle().isEmpty() ? QStringLiteral("gallocsim") : windowTitle());
    generator.setDescription(QStringLiteral("exported by gallocsim-gui"));
    QPainter painter;
    if (!painter.begin(&generator)) {
        return false;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    render_view(painter);
    return painter.end() && QFile::exists(path);
}

void CanvasView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    render_view(painter);
}

void CanvasView::resizeEvent(QResizeEvent*) {
    if (fitted_) {
        apply_fit();
    }
}

void CanvasView::wheelEvent(QWheelEvent* event) {
    // Some platforms turn Shift+wheel into a sideways wheel: either delta counts.
    const QPoint delta = event->angleDelta();
    const double steps = (delta.y() != 0 ? delta.y() : delta.x()) / 120.0;
    if (steps == 0.0) {
        return;
    }
    if (event->modifiers() & Qt::ShiftModifier) {
        zoom_offsets_by(std::pow(1.2, steps), event->position());
    } else {
        zoom_by(std::pow(1.2, steps), event->position());
    }
    event->accept();
}

void CanvasView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton || event->button() == Qt::MiddleButton) {
        drag_start_ = event->position();
        drag_origin_ = origin_;
        dragged_ = false;
    }
}

void CanvasView::mouseMoveEvent(QMouseEvent* event) {
    if (drag_start_) {
        const QPointF delta = event->position() - *drag_start_;
        if (dragged_ || delta.manhattanLength() > kDragThreshold) {
            dragged_ = true;
            origin_ = drag_origin_ - QPointF(delta.x() / scale_x_, delta.y() / scale_y_);
            fitted_ = false;
            setCursor(Qt::ClosedHandCursor);
            update();
            return;
        }
    }
    const auto tensor = tensor_at(event->position());
    if (tensor != hovered_) {
        hovered_ = tensor;
        Q_EMIT tensor_hovered(tensor, event->globalPosition().toPoint());
    }
}

void CanvasView::mouseReleaseEvent(QMouseEvent* event) {
    const bool was_click = drag_start_ && !dragged_ && event->button() == Qt::LeftButton;
    drag_start_.reset();
    unsetCursor();
    if (was_click) {
        if (const auto tensor = tensor_at(event->position())) {
            Q_EMIT tensor_clicked(*tensor);
        }
    }
}

void CanvasView::leaveEvent(QEvent*) {
    if (hovered_) {
        hovered_.reset();
        Q_EMIT tensor_hovered(std::nullopt, QPoint());
    }
}

void CanvasView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoom_in();
        break;
    case Qt::Key_Minus:
        zoom_out();
        break;
    case Qt::Key_0:
        fit_to_window();
        break;
    default:
        QWidget::keyPressEvent(event);
    }
}

} // namespace gallocsim::gui
