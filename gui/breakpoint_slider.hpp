#pragma once
// A slider over all events of the trace that marks the events where a breakpoint stops
// a run with ticks under the groove (as Python Tutor marks breakpoints on its slider).

#include <QSlider>

#include <vector>

namespace gallocsim::gui {

class BreakpointSlider : public QSlider {
    Q_OBJECT
public:
    explicit BreakpointSlider(QWidget* parent = nullptr);

    // Slider values (cursor positions) to mark.
    void set_ticks(std::vector<int> values);
    const std::vector<int>& ticks() const { return ticks_; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<int> ticks_;
};

} // namespace gallocsim::gui
