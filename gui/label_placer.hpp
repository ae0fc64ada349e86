#pragma once
// Where a picture's text labels go so that none covers another: each label offers the places
// it could stand, best first; the placer takes the first that lies inside the picture and
// overlaps no label placed before it, or none (the label is left out). Views place the labels
// that matter most first (the cursor's, then axes, then names), so the least important give
// way. A test renders each view and checks that no two drawn texts overlap, and that none is
// cut or elided (gui/tests/label_test.cpp).

#include <QFontMetricsF>
#include <QPainter>
#include <QRectF>
#include <QString>

#include <initializer_list>
#include <optional>
#include <vector>

namespace gallocsim::gui {

// Draws `text` in `box`, aligned by `flags`, when it fits there whole, and says whether it did:
// a label in a block, a bar or a strip is shown whole or not at all, never cut at the box's
// edge or elided.
inline bool draw_whole(QPainter& painter, const QRectF& box, int flags, const QString& text) {
    const QFontMetricsF metrics(painter.font());
    if (metrics.horizontalAdvance(text) + 1 > box.width() || metrics.height() > box.height()) {
        return false;
    }
    painter.drawText(box, flags, text);
    return true;
}

class LabelPlacer {
public:
    explicit LabelPlacer(QRectF bounds) : bounds_(bounds) {}

    // Keeps labels out of a region (a strip drawn over, another label drawn elsewhere).
    void reserve(QRectF region) { taken_.push_back(region); }

    std::optional<QRectF> place(std::initializer_list<QRectF> candidates) {
        for (const QRectF& candidate : candidates) {
            if (fits(candidate)) {
                taken_.push_back(candidate);
                return candidate;
            }
        }
        return std::nullopt;
    }

    // Draws `text` in the first free place: candidates are the text's top-left corners, the
    // box is the text's size in the painter's font. False when no place was free.
    bool draw(QPainter& painter, const QString& text, std::initializer_list<QPointF> corners) {
        const QFontMetricsF metrics(painter.font());
        const QSizeF size(metrics.horizontalAdvance(text) + 2, metrics.height());
        for (const QPointF& corner : corners) {
            const QRectF box(corner, size);
            if (fits(box)) {
                taken_.push_back(box);
                painter.drawText(box, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextDontClip, text);
                return true;
            }
        }
        return false;
    }

private:
    bool fits(const QRectF& box) const {
        if (!bounds_.contains(box)) {
            return false;
        }
        for (const QRectF& other : taken_) {
            if (box.intersects(other)) {
                return false;
            }
        }
        return true;
    }

    QRectF bounds_;
    std::vector<QRectF> taken_;
};

} // namespace gallocsim::gui
