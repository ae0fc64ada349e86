#include "gui/breakpoint_set.hpp"

#include <algorithm>

namespace gallocsim::gui {

void BreakpointSet::clear() {
    tensors_.clear();
    kinds_.clear();
    positions_.clear();
}

void BreakpointSet::locate(const Cursor* cursor) {
    positions_.clear();
    if (cursor == nullptr || (tensors_.empty() && kinds_.empty())) {
        return;
    }
    std::vector<Breakpoint> all;
    for (TensorId tensor : tensors_) {
        all.emplace_back(OnTensor{tensor});
    }
    for (EventKind kind : kinds_) {
        all.emplace_back(OnKind{kind});
    }
    for (std::size_t p = 1; p <= cursor->size(); ++p) {
        if (std::ranges::any_of(all, [&](const Breakpoint& b) { return cursor->hits(b, p); })) {
            positions_.push_back(p);
        }
    }
}

std::optional<std::size_t> BreakpointSet::next_after(std::size_t position) const {
    const auto it = std::ranges::upper_bound(positions_, position);
    return it == positions_.end() ? std::nullopt : std::optional(*it);
}

} // namespace gallocsim::gui
