// SimulationController's reports on the plan shown, worked out on first use and kept with it:
// the comparison with the other planners (its exact search off the GUI thread, cancellable)
// and why each buffer is as large as it is.
#include "gui/simulation_controller.hpp"

#include <chrono>
#include <memory>
#include <stop_token>

namespace gallocsim::gui {

const Comparison& SimulationController::comparison() {
    if (!loaded_->comparison) {
        loaded_->comparison = compare_in_background();
    }
    return *loaded_->comparison;
}

// The exact search may use its whole time limit on a large graph: it runs off the GUI thread,
// keeping the graph it reads alive (a cancelled job runs on until it notices, maybe after
// another graph is loaded), and a cancel stops it; the plans are then made again at once, the
// search told to stop, so the panel shows the heuristics' plans and an exact row that says it
// was cancelled.
Comparison SimulationController::compare_in_background() {
    auto stop = std::make_shared<std::stop_source>();
    ExactLimits limits;
    limits.time_limit = std::chrono::seconds(2);  // as compare's default
    limits.stop = stop->get_token();
    std::optional<Comparison> compared =
        off_thread(tr("searching for the smallest arena"), tr("Comparing planners failed"),
                   [loaded = loaded_, limits] { return compare_planners(loaded->file, *loaded->plan, limits); });
    if (!compared) {
        stop->request_stop();
        compared = compare_planners(loaded_->file, *loaded_->plan, limits);
    }
    return std::move(*compared);
}

const std::vector<BufferAnswer>& SimulationController::why_answers() {
    if (!loaded_->answers) {
        const Comparison& compared = comparison();
        // By the rules the plan shown was made by, not the toolbar's: a capture's call is planned
        // by its session's version, and its what-if plans must not come from another allocator.
        loaded_->answers = gallocsim::why_answers(loaded_->file, planned_by(), trace(), compared, loaded_->peaks);
    }
    return *loaded_->answers;
}

} // namespace gallocsim::gui
