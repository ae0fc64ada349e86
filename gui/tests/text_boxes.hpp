#pragma once
// Records where a painter draws text, for tests that check labels: a paint device whose engine
// draws nothing and keeps, for every text item, its box in device pixels (its advance width
// by its ascent plus descent, where the painter put it). It sees every text a view draws,
// whichever code path drew it, so a label that skips the views' LabelPlacer is caught too.

#include <QPaintDevice>
#include <QPaintEngine>
#include <QPainter>
#include <QRectF>
#include <QString>
#include <QTextItem>
#include <QWidget>

#include <memory>
#include <vector>

namespace gallocsim::gui::testing_support {

struct TextBox {
    QRectF box;
    QString text;
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
    void drawTextItem(const QPointF& at, const QTextItem& item) override {
        const QRectF box(at.x(), at.y() - item.ascent(), item.width(), item.ascent() + item.descent());
        boxes.push_back({painter()->combinedTransform().mapRect(box), item.text()});
    }
    Type type() const override { return QPaintEngine::User; }

    std::vector<TextBox> boxes;
};

// A device the size of `like`, with its resolution, so fonts measure as on screen.
class TextBoxDevice : public QPaintDevice {
public:
    explicit TextBoxDevice(const QWidget& like) : like_(like), engine_(std::make_unique<TextBoxEngine>()) {}
    ~TextBoxDevice() override = default;
    QPaintEngine* paintEngine() const override { return engine_.get(); }
    const std::vector<TextBox>& boxes() const { return engine_->boxes; }

protected:
    int metric(PaintDeviceMetric metric) const override {
        switch (metric) {
        case PdmWidth: return like_.width();
        case PdmHeight: return like_.height();
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

} // namespace gallocsim::gui::testing_support
