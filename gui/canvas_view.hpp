#pragma once
// The base of the picture views (graph, memory map, timeline): a widget that shows a
// scene through a zoomable, pannable viewport, and can render what it shows to a PNG or
// an SVG file. Subclasses paint in widget coordinates through map_to_widget(), so pens
// and text keep their size at any zoom; the scene's units are theirs (pixels for the
// graph, bytes and events for the memory map and timeline).

#include <QPointF>
#include <QRectF>
#include <QWidget>

#include <cstddef>
#include <optional>

class QPainter;

namespace gallocsim::gui {

class CanvasView : public QWidget {
    Q_OBJECT
public:
    explicit CanvasView(QWidget* parent = nullptr);

    QPointF map_to_widget(QPointF scene) const;
    QPointF map_to_scene(QPointF widget) const;
    QRectF map_to_widget(const QRectF& scene) const;
    QRectF visible_scene_rect() const;
    double scale_x() const { return scale_x_; }
    double scale_y() const { return scale_y_; }

    // Fits the whole scene into the widget and keeps it fitted on resize and scene
    // changes, until the user zooms or pans.
    void fit_to_window();
    void zoom_by(double factor, QPointF widget_anchor);
    void zoom_in() { zoom_by(1.25, rect().center()); }
    void zoom_out() { zoom_by(0.8, rect().center()); }
    // Zooms along the offset axis only (the timeline's y, the memory map's x), keeping the
    // scene point under the anchor in place; views without offsets zoom as zoom_by. Shift
    // with the wheel does this, so a 4 KiB tensor under a 300 MiB one can be opened up
    // without losing the time axis.
    void zoom_offsets_by(double factor, QPointF widget_anchor);
    bool has_offset_axis() const { return offset_axis().has_value(); }
    // Moves the viewport so that `scene` is at the widget's centre.
    void center_on(QPointF scene);
    bool is_fitted() const { return fitted_; }

    // Renders what the view shows now, at its size, into a painter (PNG, SVG, tests).
    void render_view(QPainter& painter);
    bool export_png(const QString& path);
    bool export_svg(const QString& path);

Q_SIGNALS:
    // The tensor under the pointer changed (nullopt: none), and where the pointer is.
    void tensor_hovered(std::optional<std::size_t> tensor, QPoint global_pos);
    void tensor_clicked(std::size_t tensor);

protected:
    // The scene's extent, in scene units.
    virtual QRectF scene_bounds() const = 0;
    // Paints the part of the scene inside the widget; the painter is in widget coordinates.
    virtual void paint_scene(QPainter& painter) = 0;
    // The tensor drawn at a widget position, if any.
    virtual std::optional<std::size_t> tensor_at(QPointF widget_pos) const = 0;
    // The axis offsets run along, if the scene has one.
    virtual std::optional<Qt::Orientation> offset_axis() const { return std::nullopt; }
    // Whether zooming keeps the aspect ratio (the graph) or zooms along x only.
    virtual bool uniform_zoom() const { return true; }
    // Whether fitting also scales y to the height (false: one scene unit is one pixel).
    virtual bool fit_height() const { return true; }
    // The narrowest a uniform view's x scale goes when it fits or zooms out: a scene too
    // tall to fit at that scale is squeezed along y only, so it never shrinks to a column
    // of single pixels (0: no floor).
    virtual double min_scale_x() const { return 0.0; }
    // Margins around the fitted scene, in pixels.
    virtual QMarginsF fit_margins() const { return {12, 12, 12, 12}; }

    // Call when the scene's extent changes: refits when fitted.
    void scene_changed();

    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void apply_fit();

    double scale_x_ = 1.0;
    double scale_y_ = 1.0;
    QPointF origin_;  // the scene point at the widget's top-left corner
    bool fitted_ = true;
    double x_floor_ = 0.0;  // min_scale_x() as far as the widget's width allows, set by fitting
    std::optional<QPointF> drag_start_;
    QPointF drag_origin_;
    bool dragged_ = false;
    std::optional<std::size_t> hovered_;
};

} // namespace gallocsim::gui
