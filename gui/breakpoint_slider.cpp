#include "gui/breakpoint_slider.hpp"

#include "gui/tensor_color.hpp"

#include <QPainter>
#include <QStyle>
#include <QStyleOptionSlider>

namespace gallocsim::gui {

BreakpointSlider::BreakpointSlider(QWidget* parent) : QSlider(Qt::Horizontal, parent) {
    setMinimumHeight(30);
    setPageStep(10);
}

void BreakpointSlider::set_ticks(std::vector<int> values) {
    ticks_ = std::move(values);
    update();
}

void BreakpointSlider::paintEvent(QPaintEvent* event) {
    QSlider::paintEvent(event);
    if (ticks_.empty() || maximum() <= minimum()) {
        return;
    }
    QStyleOptionSlider option;
    initStyleOption(&option);
    const QRect groove = style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderGroove, this);
    const QRect handle = style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, this);
    // The handle's centre travels from groove.left + handle/2 to groove.right - handle/2.
    const int span = groove.width() - handle.width();
    QPainter painter(this);
    painter.setPen(QPen(palette::cursor, 2));
    for (int value : ticks_) {
        const int x = groove.left() + handle.width() / 2 +
                      QStyle::sliderPositionFromValue(minimum(), maximum(), value, span, option.upsideDown);
        painter.drawLine(x, height() - 7, x, height() - 1);
    }
}

} // namespace gallocsim::gui
