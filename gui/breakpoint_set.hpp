#pragma once
// The breakpoints a user has set (on tensors, on event kinds) and where they stop a run: the
// positions whose event hits one, worked out once per plan so a run finds the next in log time.

#include "simulator/trace/cursor.hpp"

#include <cstddef>
#include <optional>
#include <set>
#include <vector>

namespace gallocsim::gui {

class BreakpointSet {
public:
    void set_tensor(TensorId tensor, bool on) { on ? void(tensors_.insert(tensor)) : void(tensors_.erase(tensor)); }
    void set_kind(EventKind kind, bool on) { on ? void(kinds_.insert(kind)) : void(kinds_.erase(kind)); }
    void clear();
    bool has_tensor(TensorId tensor) const { return tensors_.contains(tensor); }
    bool has_kind(EventKind kind) const { return kinds_.contains(kind); }
    const std::set<TensorId>& tensors() const { return tensors_; }
    const std::set<EventKind>& kinds() const { return kinds_; }

    // Works out the positions (1..cursor.size()) whose event hits a breakpoint; call after
    // every change of the breakpoints or of the trace (nullptr: no trace, no positions).
    void locate(const Cursor* cursor);
    const std::vector<std::size_t>& positions() const { return positions_; }
    std::optional<std::size_t> next_after(std::size_t position) const;

private:
    std::set<TensorId> tensors_;
    std::set<EventKind> kinds_;
    std::vector<std::size_t> positions_;  // ascending
};

} // namespace gallocsim::gui
