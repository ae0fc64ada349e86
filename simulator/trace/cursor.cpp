#include "simulator/trace/cursor.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

namespace gallocsim {

std::size_t automatic_checkpoint_interval(const Trace& trace) {
    constexpr std::size_t kPagePointers = std::size_t{1} << 23;
    const std::size_t pages = trace.tensors.size() / decltype(SimState::tensors)::kPageSize + 1;
    // events * pages / interval <= kPagePointers, without overflowing the product.
    const std::size_t interval = trace.size() / kPagePointers * pages + trace.size() % kPagePointers * pages / kPagePointers + 1;
    return std::max(interval, kDefaultCheckpointInterval);
}

Cursor::Cursor(std::shared_ptr<const Trace> trace, std::optional<std::size_t> checkpoint_interval)
    : trace_(std::move(trace)) {
    if (!trace_) {
        throw std::invalid_argument("a cursor needs a trace");
    }
    interval_ = checkpoint_interval.value_or(automatic_checkpoint_interval(*trace_));
    if (interval_ == 0) {
        throw std::invalid_argument("the checkpoint interval must be at least 1");
    }
    SimState state = initial_state(*trace_);
    checkpoints_.reserve(size() / interval_ + 1);
    live_bytes_.reserve(size() + 1);
    checkpoints_.push_back(state);
    live_bytes_.push_back(gallocsim::live_bytes(state));
    while (state.position < size()) {
        apply_next(state, *trace_);
        live_bytes_.push_back(gallocsim::live_bytes(state));
        if (state.position % interval_ == 0) {
            checkpoints_.push_back(state);  // shares every page it did not change
        }
    }
    state_ = checkpoints_.front();
}

SimState Cursor::state_at(std::size_t position) const {
    if (position > size()) {
        throw std::out_of_range("position " + std::to_string(position) + " is past the trace's " +
                                std::to_string(size()) + " events");
    }
    SimState state = checkpoints_[position / interval_];
    advance(state, position);
    return state;
}

void Cursor::advance(SimState& state, std::size_t position) const {
    while (state.position < position) {
        apply_next(state, *trace_);
        if (state.position % interval_ == 0) {
            state = checkpoints_[state.position / interval_];
        }
    }
}

const TraceEvent* Cursor::last_event() const {
    return at_start() ? nullptr : &trace_->events[position() - 1];
}

const TraceEvent* Cursor::next_event() const {
    return at_end() ? nullptr : &trace_->events[position()];
}

bool Cursor::step_forward() {
    if (at_end()) {
        return false;
    }
    advance(state_, position() + 1);
    replayed_ = 1;
    return true;
}

bool Cursor::step_back() {
    if (at_start()) {
        return false;
    }
    const std::size_t target = position() - 1;
    const std::size_t start = target / interval_ * interval_;
    if (stretch_.empty() || stretch_.front().position != start || stretch_.back().position < target) {
        // Replay the stretch from its checkpoint once, keeping every state on the way.
        stretch_.assign(1, checkpoints_[target / interval_]);
        while (stretch_.back().position < target) {
            stretch_.push_back(stretch_.back());
            apply_next(stretch_.back(), *trace_);
        }
        replayed_ = target - start;
    } else {
        replayed_ = 0;
    }
    state_ = stretch_[target - start];
    return true;
}

void Cursor::jump(std::size_t position) {
    if (position > size()) {
        throw std::out_of_range("position " + std::to_string(position) + " is past the trace's " +
                                std::to_string(size()) + " events");
    }
    // Go on from here when that is no further than from the checkpoint.
    const std::size_t checkpoint = position / interval_;
    if (state_.position > position || state_.position < checkpoint * interval_) {
        state_ = checkpoints_[checkpoint];
    }
    replayed_ = position - state_.position;
    advance(state_, position);
}

bool Cursor::hits(const Breakpoint& breakpoint, std::size_t position) const {
    if (position == 0 || position > size()) {
        return false;
    }
    const TraceEvent& event = trace_->events[position - 1];
    return std::visit(
        [&](const auto& b) {
            using B = std::decay_t<decltype(b)>;
            if constexpr (std::is_same_v<B, OnTensor>) {
                return touches(event, b.tensor);
            } else if constexpr (std::is_same_v<B, OnKind>) {
                return kind_of(event) == b.kind;
            } else {
                return live_bytes_[position - 1] <= b.bytes && live_bytes_[position] > b.bytes;
            }
        },
        breakpoint);
}

std::optional<std::size_t> Cursor::find_forward(const Breakpoint& breakpoint) const {
    for (std::size_t p = position() + 1; p <= size(); ++p) {
        if (hits(breakpoint, p)) {
            return p;
        }
    }
    return std::nullopt;
}

std::optional<std::size_t> Cursor::find_back(const Breakpoint& breakpoint) const {
    for (std::size_t p = position(); p-- > 1;) {
        if (hits(breakpoint, p)) {
            return p;
        }
    }
    return std::nullopt;
}

bool Cursor::run_forward(const Breakpoint& breakpoint) {
    const auto target = find_forward(breakpoint);
    if (target) {
        jump(*target);
    }
    return target.has_value();
}

bool Cursor::run_back(const Breakpoint& breakpoint) {
    const auto target = find_back(breakpoint);
    if (target) {
        jump(*target);
    }
    return target.has_value();
}

} // namespace gallocsim
