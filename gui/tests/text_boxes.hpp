#pragma once
// Records where a painter draws text, for tests that check labels: a paint device whose engine
// draws nothing and keeps, for every text item, its box in device pixels (its advance width
// by its ascent plus descent, where the painter put it) and the clip it was drawn under (a
// drawText box, an item view's cell, a child widget). It sees every text a view draws,
// whichever code path drew it, so a label that skips the views' LabelPlacer is caught too.

#include <QPaintDevice>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>
#include <QRectF>
#include <QString>
#include <QTextItem>
#include <QWidget>

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

namespace gallocsim::gui::testing_support {

struct TextBox {
    QRectF box;
    QString text;
    std::optional<QRectF> clip;  // what the painter let through, in device pixels
};

class TextBoxEngine : public QPaintEngine {
public:
    TextBoxEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
    bool begin(QPaintDevice*) override { return true; }
    bool end() override { return true; }
    void updateState(const QPaintEngineState&) override {}
    void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
    void drawPolygon(const QPoint*, int, PolygonDrawMode) override {}
    void drawPath(const QPainterPath&) override {}
    void drawTextItem(const QPointF& at, const QTextItem& item) override {
        // The device transform: a child widget is painted at its place in the rendered one.
        const QTransform to_device = painter()->deviceTransform();
        const QRectF box(at.x(), at.y() - item.ascent(), item.width(), item.ascent() + item.descent());
        std::optional<QRectF> clip;
        if (painter()->hasClipping()) {
            clip = to_device.mapRect(painter()->clipBoundingRect());
        }
        if (const QRegion system = systemClip(); !system.isEmpty()) {  // a child widget's area
            clip = clip ? clip->intersected(QRectF(system.boundingRect())) : QRectF(system.boundingRect());
        }
        boxes.push_back({to_device.mapRect(box), item.text(), clip});
    }
    Type type() const override { return QPaintEngine::User; }

    std::vector<TextBox> boxes;
};

// A device the size of `like` (or of `size`), with its resolution, so fonts measure as on screen.
class TextBoxDevice : public QPaintDevice {
public:
    explicit TextBoxDevice(const QWidget& like) : TextBoxDevice(like, like.size()) {}
    TextBoxDevice(const QWidget& like, QSize size) : like_(like), size_(size), engine_(std::make_unique<TextBoxEngine>()) {}
    ~TextBoxDevice() override = default;
    QPaintEngine* paintEngine() const override { return engine_.get(); }
    const std::vector<TextBox>& boxes() const { return engine_->boxes; }

protected:
    int metric(PaintDeviceMetric metric) const override {
        switch (metric) {
        case PdmWidth: return size_.width();
        case PdmHeight: return size_.height();
        case PdmDevicePixelRatio: return 1;
        case PdmDevicePixelRatioScaled: return static_cast<int>(devicePixelRatioFScale());
        case PdmWidthMM: return like_.widthMM();
        case PdmHeightMM: return like_.heightMM();
        case PdmDpiX: case PdmPhysicalDpiX: return like_.logicalDpiX();
        case PdmDpiY: case PdmPhysicalDpiY: return like_.logicalDpiY();
        case PdmNumColors: return 1 << 24;
        case PdmDepth: return 32;
        default: return 0;
        }
    }

private:
    const QWidget& like_;
    QSize size_;
    std::unique_ptr<TextBoxEngine> engine_;
};

// The first two texts whose boxes overlap (by more than half a pixel each way), or a text
// that leaves the widget; empty when every text stands clear.
inline QString overlapping_texts(const std::vector<TextBox>& boxes, const QRectF& widget) {
    const QRectF inside = widget.adjusted(-0.5, -0.5, 0.5, 0.5);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const TextBox& a = boxes[i];
        if (a.text.trimmed().isEmpty()) {
            continue;
        }
        if (!inside.contains(a.box)) {
            return QStringLiteral("'%1' at (%2, %3, %4 x %5) leaves the view")
                .arg(a.text).arg(a.box.x()).arg(a.box.y()).arg(a.box.width()).arg(a.box.height());
        }
        for (std::size_t j = i + 1; j < boxes.size(); ++j) {
            const TextBox& b = boxes[j];
            if (b.text.trimmed().isEmpty()) {
                continue;
            }
            if (a.box.adjusted(0.5, 0.5, -0.5, -0.5).intersects(b.box.adjusted(0.5, 0.5, -0.5, -0.5))) {
                return QStringLiteral("'%1' (%2, %3) and '%4' (%5, %6) overlap")
                    .arg(a.text).arg(a.box.x()).arg(a.box.y()).arg(b.text).arg(b.box.x()).arg(b.box.y());
            }
        }
    }
    return {};
}

// The first text that is cut: elided ("…"), drawn past its clip (by more than half a pixel), over
// another text or out of the widget; empty when every text is whole.
inline QString cut_texts(const std::vector<TextBox>& boxes, const QRectF& widget) {
    for (const TextBox& t : boxes) {
        const QString where = QStringLiteral("'%1' at (%2, %3, %4 x %5)")
                                  .arg(t.text).arg(t.box.x()).arg(t.box.y()).arg(t.box.width()).arg(t.box.height());
        if (t.text.contains(QChar(0x2026))) {
            return where + QStringLiteral(" is elided");
        }
        if (t.clip && !t.text.trimmed().isEmpty() && !t.clip->adjusted(-0.5, -0.5, 0.5, 0.5).contains(t.box)) {
            return where + QStringLiteral(" is clipped to (%1, %2, %3 x %4)")
                               .arg(t.clip->x()).arg(t.clip->y()).arg(t.clip->width()).arg(t.clip->height());
        }
    }
    return overlapping_texts(boxes, widget);
}

// Texts on one line either continue each other (one run of words in several formats: no gap)
// or stand at least `gap` pixels apart (columns); the first two that run together, or empty.
inline QString run_together(const std::vector<TextBox>& boxes, double gap) {
    for (const TextBox& a : boxes) {
        for (const TextBox& b : boxes) {
            const double between = b.box.left() - a.box.right();
            if (&a != &b && std::abs(a.box.bottom() - b.box.bottom()) < 1 && between > 0.5 && between < gap &&
                !a.text.trimmed().isEmpty() && !b.text.trimmed().isEmpty()) {
                return QStringLiteral("'%1' and '%2' are %3 pixels apart at y %4").arg(a.text, b.text).arg(between).arg(a.box.bottom());
            }
        }
    }
    return {};
}

} // namespace gallocsim::gui::testing_support
