#pragma once
// "Why is this buffer so big?", in the GUI: per buffer, the event and node step where its
// high-water mark was set, the tensors live then (largest first, with what keeps each
// alive), the holes below the mark and the free that left each, and how far the plan is
// from the in-place-aware bound and the best other planner. Each buffer's "show" link (and
// the Peak action) jumps there; the memory map and the timeline then highlight the live
// set and the holes until the cursor moves on.

#include "gui/lazy_panel.hpp"

class QTextBrowser;

namespace gallocsim::gui {

class SimulationController;

class PeakPanel : public LazyPanel {
    Q_OBJECT
public:
    explicit PeakPanel(SimulationController& controller, QWidget* parent = nullptr);
    QTextBrowser& text() { return *text_; }

private:
    void rebuild() override;

    SimulationController& controller_;
    QTextBrowser* text_;
};

} // namespace gallocsim::gui
