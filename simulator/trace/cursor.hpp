#pragma once
// A position in a trace with the state there: step forward and back, jump anywhere, run
// to a breakpoint. Positions count the events applied, 0 (before the first) to size()
// (after the last); the step to position p applies event p - 1, which people call
// "step p". A checkpoint of the whole state is kept every K events, so reaching any
// position costs at most K event replays, never a replay from the start; stepping back
// keeps the states of the stretch it replayed, so holding "back" costs one replay a step.

#include "simulator/trace/state.hpp"
#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <variant>
#include <vector>

namespace gallocsim {

inline constexpr std::size_t kDefaultCheckpointInterval = 64;  // the fewest events between checkpoints

// Checkpoints often enough that a jump replays few events, seldom enough that their page
// tables stay small: each costs one pointer per page of tensor states, so a fixed interval
// grows with the square of the graph (64 events apart, 123k nodes took 2.8 GB). About 8
// million page pointers in all (128 MB), never closer than kDefaultCheckpointInterval.
std::size_t automatic_checkpoint_interval(const Trace& trace);

// Stop at a step whose event touches the tensor (see touched_tensors).
struct OnTensor {
    TensorId tensor = kNoTensor;
};
// Stop at a step whose event is of this kind.
struct OnKind {
    EventKind kind = EventKind::plan_started;
};
// Stop where the live bytes rise above `bytes` (from at most `bytes` before the step).
struct LiveBytesAbove {
    std::size_t bytes = 0;
};
using Breakpoint = std::variant<OnTensor, OnKind, LiveBytesAbove>;

class Cursor {
public:
    // Replays the trace once to take the checkpoints and the live-bytes series.
    // Without an interval, automatic_checkpoint_interval's.
    explicit Cursor(std::shared_ptr<const Trace> trace, std::optional<std::size_t> checkpoint_interval = std::nullopt);
    explicit Cursor(Trace trace, std::optional<std::size_t> checkpoint_interval = std::nullopt)
        : Cursor(std::make_shared<const Trace>(std::move(trace)), checkpoint_interval) {}

    const Trace& trace() const { return *trace_; }
    std::size_t size() const { return trace_->size(); }
    std::size_t position() const { return state_.position; }
    bool at_start() const { return position() == 0; }
    bool at_end() const { return position() == size(); }

    const SimState& state() const { return state_; }
    // The state at any position, from the nearest checkpoint at or before it.
    SimState state_at(std::size_t position) const;

    // The event whose step led here (nullptr at the start) and the next one (nullptr at the end).
    const TraceEvent* last_event() const;
    const TraceEvent* next_event() const;

    bool step_forward();  // false at the end
    bool step_back();     // false at the start; replays a stretch of K only on entering it
    void jump(std::size_t position);  // throws std::out_of_range past size()
    void first() { jump(0); }
    void last() { jump(size()); }

    // The next (previous) position whose step hits the breakpoint; the search reads the
    // events and the live-bytes series only, so it replays nothing.
    std::optional<std::size_t> find_forward(const Breakpoint& breakpoint) const;
    std::optional<std::size_t> find_back(const Breakpoint& breakpoint) const;
    // Moves there and returns true, or stays and returns false when there is none.
    bool run_forward(const Breakpoint& breakpoint);
    bool run_back(const Breakpoint& breakpoint);
    // Whether the step to `position` (1..size()) hits the breakpoint.
    bool hits(const Breakpoint& breakpoint, std::size_t position) const;

    // Live bytes at every position 0..size(): a memory-over-time curve for free.
    std::span<const std::size_t> live_bytes() const { return live_bytes_; }

    std::size_t checkpoint_interval() const { return interval_; }
    std::size_t checkpoint_count() const { return checkpoints_.size(); }
    // How many events the last move replayed (at most checkpoint_interval()).
    std::size_t replayed_by_last_move() const { return replayed_; }

private:
    // Applies events up to `position`, taking the checkpoint's state whenever it passes
    // one: states then share the checkpoints' pages, which keeps them small and quick to
    // compare.
    void advance(SimState& state, std::size_t position) const;

    std::shared_ptr<const Trace> trace_;
    std::size_t interval_ = kDefaultCheckpointInterval;
    std::vector<SimState> checkpoints_;  // the state at 0, K, 2K, ...
    std::vector<std::size_t> live_bytes_;
    std::vector<SimState> stretch_;  // states from a checkpoint on, kept while stepping back
    SimState state_;
    std::size_t replayed_ = 0;
};

} // namespace gallocsim
