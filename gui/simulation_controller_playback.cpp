// SimulationController's cursor: moves (step, jump, to a buffer's peak), runs at a speed or
// unlimited, and the breakpoints that stop a run. Every move ends in moved(), the one place
// that tells the views.
#include "gui/simulation_controller.hpp"

#include "gui/text.hpp"

#include <algorithm>

namespace gallocsim::gui {

namespace {

// Index of the largest buffer's peak (go_to_peak's default: the size a reader asks about first).
std::size_t largest_peak(const std::vector<BufferPeak>& peaks) {
    const auto largest = std::ranges::max_element(peaks, {}, &BufferPeak::size);
    return static_cast<std::size_t>(largest - peaks.begin());
}

} // namespace

// --- The cursor -----------------------------------------------------------------------

void SimulationController::jump(std::size_t target) {
    if (!has_graph()) {
        return;
    }
    target = std::min(target, event_count());
    if (target == position()) {
        return;
    }
    if (target == position() + 1) {
        before_ = state();  // shares its pages with the cursor's state: cheap
    } else {
        before_ = loaded_->cursor.state_at(target == 0 ? 0 : target - 1);
    }
    loaded_->cursor.jump(target);
    moved();
}

void SimulationController::step_forward() {
    pause();
    jump(position() + 1);
}

void SimulationController::step_back() {
    pause();
    if (position() > 0) {
        jump(position() - 1);
    }
}

void SimulationController::moved() {
    if (shown_peak_ && shown_peak() == nullptr) {
        shown_peak_.reset();
        Q_EMIT peak_shown(false);
    }
    Q_EMIT position_changed(position());
}

void SimulationController::go_to_peak(std::optional<std::size_t> buffer_index) {
    if (!has_graph() || peaks().empty()) {
        return;
    }
    const BufferPeak& peak = peaks().at(buffer_index.value_or(largest_peak(peaks())));
    if (!peak.event) {
        Q_EMIT status_message(tr("Nothing was planned in buffer %1").arg(peak.buffer_id));
        return;
    }
    pause();
    shown_peak_.reset();
    jump(*peak.event + 1);
    shown_peak_ = static_cast<std::size_t>(&peak - peaks().data());
    Q_EMIT peak_shown(true);
    Q_EMIT status_message(tr("Buffer %1 reached its %2 at event %3, node step %4")
                              .arg(peak.buffer_id)
                              .arg(human_bytes(peak.size))
                              .arg(*peak.event + 1)
                              .arg(node_step(trace(), trace().events[*peak.event])));
}

const BufferPeak* SimulationController::shown_peak() const {
    if (!has_graph() || !shown_peak_ || *shown_peak_ >= peaks().size()) {
        return nullptr;
    }
    const BufferPeak& peak = peaks()[*shown_peak_];
    return peak.event && position() == *peak.event + 1 ? &peak : nullptr;
}

std::vector<TensorId> SimulationController::last_event_tensors() const {
    if (!has_graph() || cursor().last_event() == nullptr) {
        return {};
    }
    return touched_tensors(*cursor().last_event());
}

// --- Running --------------------------------------------------------------------------

void SimulationController::run() {
    if (!has_graph() || is_running()) {
        return;
    }
    if (cursor().at_end()) {
        jump(0);  // run again from the start, as a media player does
    }
    if (unlimited_) {
        const auto stop = breakpoints_.next_after(position());
        jump(stop.value_or(event_count()));
        Q_EMIT status_message(stop ? tr("Stopped at a breakpoint, event %1").arg(*stop) : tr("Ran to the end"));
        return;
    }
    timer_.start(std::max(kTickMilliseconds, 1000 / std::max(1, speed_)));
    Q_EMIT running_changed(true);
}

void SimulationController::pause() {
    if (timer_.isActive()) {
        timer_.stop();
        Q_EMIT running_changed(false);
    }
}

void SimulationController::tick() {
    // Each tick moves as many events as the speed asks for in one tick's time, and
    // stops early at a breakpoint: one redraw per tick however fast the run.
    const auto per_tick = static_cast<std::size_t>(std::max(1, speed_ * timer_.interval() / 1000));
    std::size_t target = std::min(position() + per_tick, event_count());
    const auto stop = breakpoints_.next_after(position());
    const bool at_breakpoint = stop && *stop <= target;
    if (at_breakpoint) {
        target = *stop;
    }
    jump(target);
    if (at_breakpoint) {
        pause();
        Q_EMIT status_message(tr("Stopped at a breakpoint, event %1").arg(target));
    } else if (cursor().at_end()) {
        pause();
    }
}

void SimulationController::set_speed(int events_per_second) {
    speed_ = std::clamp(events_per_second, 1, 10000);
    if (is_running()) {
        timer_.setInterval(std::max(kTickMilliseconds, 1000 / speed_));
    }
    Q_EMIT speed_changed(speed_, unlimited_);
}

void SimulationController::set_unlimited(bool unlimited) {
    unlimited_ = unlimited;
    if (unlimited_ && is_running()) {
        pause();
        run();
    }
    Q_EMIT speed_changed(speed_, unlimited_);
}

// --- Breakpoints ----------------------------------------------------------------------

void SimulationController::set_tensor_breakpoint(TensorId tensor, bool on) {
    breakpoints_.set_tensor(tensor, on);
    breakpoints_changed_now();
}

void SimulationController::set_kind_breakpoint(EventKind kind, bool on) {
    breakpoints_.set_kind(kind, on);
    breakpoints_changed_now();
}

void SimulationController::clear_breakpoints() {
    breakpoints_.clear();
    breakpoints_changed_now();
}

void SimulationController::breakpoints_changed_now() {
    breakpoints_.locate(has_graph() ? &cursor() : nullptr);
    Q_EMIT breakpoints_changed();
}

} // namespace gallocsim::gui
