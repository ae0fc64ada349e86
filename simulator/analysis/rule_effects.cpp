#include "simulator/analysis/rule_effects.hpp"

#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/plan_diff.hpp"
#include "simulator/model/amount_text.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace gallocsim {

namespace {

std::string names_text(const std::vector<std::string>& names) {
    constexpr std::size_t kShown = 3;
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < kShown; ++i) {
        text += (i == 0 ? "" : ", ") + names[i];
    }
    if (names.size() > kShown) {
        text += " and " + std::to_string(names.size() - kShown) + " more";
    }
    return text;
}

// In-place pairs of `with` that `without` lacks, as "X takes Y's memory".
std::vector<std::string> in_place_gained(const GgmlPlan& with, const GgmlPlan& without) {
    std::vector<std::string> gained;
    for (const InPlacePair& pair : with.in_place) {
        if (std::ranges::find(without.in_place, pair) == without.in_place.end()) {
            gained.push_back(with.trace.tensor(pair.node).name + " takes " + with.trace.tensor(pair.parent).name + "'s memory");
        }
    }
    return gained;
}

// What one change did to a plan: `before` under the profile just older than the change,
// `after` under the profile it made.
std::string rule_effect(const GgmlPlan& before, const GgmlPlan& after) {
    std::vector<std::string> parts;
    const std::string& failed_before = before.run.error;
    const std::string& failed_after = after.run.error;
    if (failed_before != failed_after) {
        parts.push_back(failed_after.empty() ? "the plan no longer fails" : "the plan fails: " + failed_after);
    }
    const auto& sizes_before = before.run.plan.buffer_sizes;
    const auto& sizes_after = after.run.plan.buffer_sizes;
    const auto& chunks_before = before.run.plan.chunk_sizes;
    const auto& chunks_after = after.run.plan.chunk_sizes;
    for (std::size_t id = 0; id < sizes_before.size() && id < sizes_after.size(); ++id) {
        const bool chunks_differ = id < chunks_before.size() && id < chunks_after.size() &&
                                   chunks_before[id].size() != chunks_after[id].size();
        if (sizes_before[id] == sizes_after[id] && !chunks_differ) {
            continue;
        }
        std::string part = "buffer " + std::to_string(id) + " " + std::to_string(sizes_before[id]) + " -> " +
                           std::to_string(sizes_after[id]) + " bytes";
        if (chunks_differ) {
            part += " in " + std::to_string(chunks_after[id].size()) +
                    (chunks_after[id].size() == 1 ? " chunk" : " chunks") + " instead of " +
                    std::to_string(chunks_before[id].size());
        }
        parts.push_back(std::move(part));
    }
    if (const auto gained = in_place_gained(after, before); !gained.empty()) {
        parts.push_back(names_text(gained));
    }
    if (const auto lost = in_place_gained(before, after); !lost.empty()) {
        parts.push_back("no longer: " + names_text(lost));
    }
    if (after.extra_space_freed != before.extra_space_freed) {
        parts.push_back("in-place nodes give back " + std::to_string(after.extra_space_freed) +
                        " bytes past their end (" + std::to_string(before.extra_space_freed) + " before)");
    }
    const PlanDiff moved = diff_plans(before.run.plan, after.run.plan);
    if (!moved.moved.empty()) {
        parts.push_back(std::to_string(moved.moved.size()) + (moved.moved.size() == 1 ? " tensor moves" : " tensors move"));
    }
    std::string text;
    for (const std::string& part : parts) {
        text += (text.empty() ? "" : "; ") + part;
    }
    return text;
}

bool same_plan(const GgmlPlan& a, const GgmlPlan& b) {
    return a.run.error == b.run.error && a.run.plan.buffer_sizes == b.run.plan.buffer_sizes &&
           a.run.plan.chunk_sizes == b.run.plan.chunk_sizes && a.run.plan.tensors == b.run.plan.tensors &&
           a.in_place == b.in_place && a.extra_space_freed == b.extra_space_freed;
}

} // namespace

std::vector<RuleEffect> version_rule_changes(const GraphFile& file, const AllocatorProfile& a, const AllocatorProfile& b) {
    std::vector<RuleEffect> effects;
    if (!is_builtin_profile(a) || !is_builtin_profile(b)) {
        return effects;  // a policy: no upstream history joins it to the other profile
    }
    const std::vector<const AllocatorProfile*> states = history_between(a, b);
    GgmlPlan before = run_ggml_plan(file, *states.front());
    for (std::size_t i = 1; i < states.size(); ++i) {
        GgmlPlan after = run_ggml_plan(file, *states[i]);
        if (!same_plan(before, after)) {
            effects.push_back({change_that_made(*states[i]), rule_effect(before, after)});
        }
        before = std::move(after);
    }
    return effects;
}

std::string describe_rule_change(const RuleChange& change) {
    std::string text(change.commit);
    if (change.commit != change.pr) {
        text += " (" + std::string(change.pr) + ")";
    }
    return text + ", " + std::string(change.date) + ": " + std::string(change.sentence);
}

} // namespace gallocsim
