#include "simulator/analysis/analysis_plans.hpp"
#include "simulator/model/working_graph.hpp"
#include "reference/dynamic_allocator.hpp"
#include "simulator/model/amount_text.hpp"

#include <algorithm>
#include <cstdint>
#include <future>
#include <map>
#include <thread>
#include <unordered_map>

namespace gallocsim {

namespace {

// Everything a GgmlPlan holds besides the run and the trace, read off the trace.
GgmlPlan read_off(const GraphFile& file, TracedPlan traced) {
    GgmlPlan plan{std::move(traced.run), std::move(traced.trace), {}, {}, {}, 0};
    plan.timeline = Timeline(plan.trace);
    plan.lifetimes = plan_lifetimes(file, plan.trace, plan.timeline);
    // A parent that gets memory again after a node took it in place (an input node can, while
    // ggml still counts consumers) no longer shares bytes with that node: such pairs are dropped
    // once every event has been seen, so the scan stays linear.
    constexpr std::size_t kNever = SIZE_MAX;
    std::vector<std::size_t> last_allocated(plan.trace.tensors.size(), kNever);
    std::vector<std::size_t> reused_at;  // per pair, its event
    for (std::size_t i = 0; i < plan.trace.events.size(); ++i) {
        const TraceEvent& event = plan.trace.events[i];
        if (const auto* reused = std::get_if<Recorded<event::InPlaceReused>>(&event.data)) {
            // Through a view (a policy's rule), the memory taken is the view's source's.
            const TensorId owner = reused->view_source != kNoTensor ? reused->view_source : reused->parent;
            plan.in_place.push_back({reused->node, owner});
            reused_at.push_back(i);
        } else if (const auto* allocated = std::get_if<Recorded<event::TensorAllocated>>(&event.data)) {
            last_allocated.at(static_cast<std::size_t>(allocated->tensor)) = i;
        } else if (const auto* extra = std::get_if<Recorded<event::ExtraSpaceFreed>>(&event.data)) {
            plan.extra_space_freed += plan.trace.freed(*extra).size;
        }
    }
    std::size_t kept = 0;
    for (std::size_t p = 0; p < plan.in_place.size(); ++p) {
        const std::size_t again = last_allocated[static_cast<std::size_t>(plan.in_place[p].parent)];
        if (again == kNever || again < reused_at[p]) {
            plan.in_place[kept++] = plan.in_place[p];
        }
    }
    plan.in_place.resize(kept);
    return plan;
}

} // namespace

GgmlPlan run_ggml_plan(const GraphFile& file, const AllocatorProfile& profile) {
    return run_ggml_plan(file, describe_tensors(file), profile);
}

GgmlPlan run_ggml_plan(const GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile) {
    return read_off(file, trace_plan(file, std::move(tensors), profile));
}

GgmlPlan run_ggml_plan(const GraphFile& file, TraceTensors tensors, const AllocatorProfile& profile, PlanRun earlier) {
    return read_off(file, trace_plan(file, std::move(tensors), prepare_plan_again(file, std::move(earlier), profile)));
}

PlansWithout::PlansWithout(const GraphFile& file, const AllocatorProfile& profile, PlanRun earlier)
    : file_(&file), profile_(&profile), run_(std::move(earlier)) {
    if (run_.allocator == nullptr) {
        run_.planned = working_copy(file);  // no earlier run given
    }
}

std::vector<std::size_t> PlansWithout::buffer_sizes_without(TensorId tensor) {
    run_ = prepare_plan_again(*file_, std::move(run_), *profile_);
    WorkingGraph& planned = run_.planned;
    // Outside every buffer, as a weight is: the allocator sees data it did not plan.
    planned.context.tensors().at(static_cast<std::size_t>(tensor)).data = external_data_placeholder();
    GraphAllocator& allocator = *run_.allocator;
    std::vector<std::size_t> sizes;
    if (allocator.reserve_n(planned.graph, planned.node_buffer_ids, planned.leaf_buffer_ids) && allocator.alloc_graph(planned.graph)) {
        for (int id = 0; id < allocator.buffer_count(); ++id) {
            sizes.push_back(allocator.buffer_size(id));  // as record_plan reads them
        }
    }
    return sizes;
}

std::vector<std::vector<std::size_t>> buffer_sizes_without_each(const GraphFile& file, const AllocatorProfile& profile,
                                                                std::span<const TensorId> tensors, PlanRun earlier) {
    std::vector<std::vector<std::size_t>> sizes(tensors.size());
    // Plans i, i + stride, ... of `tensors` on one working copy.
    const auto make_every = [&](std::size_t first, std::size_t stride, PlanRun run) {
        PlansWithout plans(file, profile, std::move(run));
        for (std::size_t i = first; i < tensors.size(); i += stride) {
            sizes[i] = plans.buffer_sizes_without(tensors[i]);
        }
    };
    if (tensors.size() < 2 || std::thread::hardware_concurrency() < 2) {
        make_every(0, 1, std::move(earlier));
        return sizes;
    }
    // std::async rethrows what the second thread throws (bad_alloc) where its result is read.
    auto second = std::async(std::launch::async, make_every, std::size_t{1}, std::size_t{2}, PlanRun{});
    make_every(0, 2, std::move(earlier));
    second.get();
    return sizes;
}

std::string bound_position_text(const Trace& trace, const ArenaComparison& arena) {
    constexpr std::size_t kShown = 5;
    const int step = arena.lower_bound.step;
    const TensorId node = trace.tensors.node_at_step(step);
    const auto& live = arena.live_at_bound;
    std::string text = "node step " + std::to_string(step) + " (" +
                       (node != kNoTensor ? trace.tensor(node).name + " running" : std::string("before the first node")) +
                       "), with " + counted(live.size(), "block") + " live";
    for (std::size_t i = 0; i < std::min(live.size(), kShown); ++i) {
        text += (i == 0 ? ": " : ", ") + live[i].name + " " + binary_size(block_bytes(live[i]));
    }
    if (live.size() > kShown) {
        text += ", and " + std::to_string(live.size() - kShown) + " more";
    }
    return text;
}

PlanToCheck ggml_plan_to_check(const GraphFile& file, const GgmlPlan& plan) {
    const auto name_of = [&](TensorId id) -> const std::string& { return plan.trace.tensor(id).name; };
    PlanToCheck check;
    for_each_placement(file, plan.run.plan, [&](const Tensor* tensor, const std::string& name, const Placement& place) {
        if (tensor != nullptr && tensor->is_view()) {
            return;  // a view lives in its root's bytes and has no lifetime of its own
        }
        check.placements.push_back({name, place.buffer_id, place.chunk, place.offset});
    });
    for (const TensorLifetime& lifetime : plan.lifetimes.tensors) {
        check.tensors.push_back({name_of(lifetime.tensor), lifetime.first, lifetime.last, lifetime.size, 0});
    }
    for (int id = 0; id < file.buffer_count(); ++id) {
        const TraceBuffer& traced = plan.trace.buffer(id);
        CheckedBuffer buffer;
        buffer.name = traced.type_name;
        buffer.alignment = traced.alignment;
        buffer.max_size = traced.max_size;  // as planning used it
        if (static_cast<std::size_t>(id) < plan.run.plan.chunk_sizes.size()) {
            buffer.chunk_sizes = plan.run.plan.chunk_sizes[static_cast<std::size_t>(id)];
        }
        check.buffers.push_back(std::move(buffer));
    }
    // A node may share its parent's bytes because it overwrites them only when it runs, as
    // the parent's last consumer. Should the parent outlive that step, the pair is checked
    // like any other.
    for (const InPlacePair& pair : plan.in_place) {
        const TraceTensor& node = plan.trace.tensor(pair.node);
        const TensorLifetime* parent = plan.lifetimes.find(pair.parent);
        if (node.role == TensorRole::node && parent != nullptr && parent->last <= node.position + 1) {
            check.may_share.emplace_back(node.name, name_of(pair.parent));
        }
    }
    return check;
}

namespace {

// The planners lay the blocks out in one arena. A buffer type with a max size splits ggml's
// buffer into chunks that no tensor straddles; a plan higher than the max size may not cut
// into such chunks, so the smallest arena is then a bound on a chunked plan, not an optimum
// ggml could reach. ggml's own plan is a chunked plan: the chunked optimum lies between the
// two, and the exact search's row says so and claims no optimum.
void note_chunks(const BufferTypeSpec& type, std::size_t ggml_size, std::vector<PlannerOutcome>& outcomes) {
    if (!type.max_size) {
        return;
    }
    for (PlannerOutcome& outcome : outcomes) {
        if (outcome.lower_bound == 0 || outcome.plan.size <= *type.max_size) {
            continue;  // a heuristic's row, or a plan that fits one chunk
        }
        std::string note = (outcome.proved_optimal ? std::string("smallest in one arena (proven)") : outcome.note) +
                           "; a bound for chunks of at most " + binary_size(*type.max_size);
        if (ggml_size == outcome.lower_bound) {
            note += ": ggml's chunked plan meets it, so it is their optimum";
        } else if (ggml_size > outcome.lower_bound) {
            note += ": ggml's chunked plan is at most " + gap_text(ggml_size, outcome.lower_bound) + " above their optimum";
        }
        outcome.note = std::move(note);
        outcome.proved_optimal = false;
    }
}

} // namespace

const AlternativePlan& ArenaComparison::best_alternative() const {
    // Among equals the exact search's, since it can say how good the plan is (it starts from
    // the heuristics' plans, so it is never above them).
    return *std::ranges::min_element(alternatives, {}, [](const AlternativePlan& a) {
        return std::pair(a.outcome.plan.size, a.outcome.lower_bound == 0);
    });
}

Comparison compare_planners(const GraphFile& file, const GgmlPlan& ggml, const ExactLimits& limits) {
    Comparison comparison;
    const GraphLifetimes& lifetimes = ggml.lifetimes;
    comparison.ggml_error = ggml.run.error;
    if (comparison.ggml_error.empty()) {
        comparison.ggml_violations = check_plan(ggml_plan_to_check(file, ggml));
    }
    const std::vector<ArenaProblem> tensors = arena_problems(file, lifetimes);
    const std::vector<ArenaProblem> joined = in_place_arena_problems(file, lifetimes, ggml.in_place);
    for (std::size_t type = 0; type < tensors.size(); ++type) {
        const ArenaProblem& problem = joined[type];
        if (tensors[type].blocks.empty()) {
            continue;
        }
        ArenaComparison arena;
        arena.buffer_type = problem.name;
        arena.alignment = file.buffer_types[type].alignment;
        arena.tensors = tensors[type].blocks.size();
        arena.blocks = problem.blocks.size();
        // The lowest buffer id of the type reports the type's buffer.
        const auto id = static_cast<std::size_t>(std::ranges::find(file.buffers, static_cast<int>(type)) - file.buffers.begin());
        if (id < ggml.run.plan.buffer_sizes.size()) {
            arena.ggml_size = ggml.run.plan.buffer_sizes[id];
            arena.ggml_chunks = ggml.run.plan.chunk_sizes[id].size();
        }
        arena.lower_bound = lower_bound(problem.blocks);
        for (const LiveBlock& block : problem.blocks) {
            if (block.live_at(arena.lower_bound.step)) {
                arena.live_at_bound.push_back(block);
            }
        }
        std::ranges::stable_sort(arena.live_at_bound, std::greater{}, [](const LiveBlock& b) { return block_bytes(b); });
        arena.bound_without_in_place = lower_bound(tensors[type].blocks);
        arena.no_reuse = no_reuse_size(tensors[type].blocks);
        std::vector<PlannerOutcome> outcomes = run_every_planner(problem, limits);
        note_chunks(file.buffer_types[type], comparison.ggml_error.empty() ? arena.ggml_size : 0, outcomes);
        std::vector<Violation> verdict;  // the checker's on the last plan checked
        for (std::size_t p = 0; p < outcomes.size(); ++p) {
            // A plan the same as the one before it (the exact search keeps greedy by size's
            // plan of a problem too big to search) gets the same verdict without a second check.
            const ArenaPlan& plan = outcomes[p].plan;
            const ArenaPlan* before = p > 0 ? &arena.alternatives.back().outcome.plan : nullptr;
            const bool checked = before != nullptr && plan.size == before->size && plan.offsets == before->offsets;
            if (!checked) {
                verdict = check_plan(arena_plan_to_check(problem, plan));
            }
            arena.planner_violations.insert(arena.planner_violations.end(), verdict.begin(), verdict.end());
            arena.alternatives.push_back({&planners()[p], std::move(outcomes[p])});
        }
        comparison.arenas.push_back(std::move(arena));
    }
    return comparison;
}

PlanDiff diff_plans(const PlanRecord& before, const PlanRecord& after) {
    PlanDiff diff;
    diff.sizes_before = before.buffer_sizes;
    diff.sizes_after = after.buffer_sizes;
    diff.chunks_before = before.chunk_sizes;
    diff.chunks_after = after.chunk_sizes;
    std::map<std::string, Placement> later(after.tensors.begin(), after.tensors.end());
    for (const auto& [name, place] : before.tensors) {
        auto it = later.find(name);
        if (it == later.end()) {
            diff.moved.push_back({name, place, std::nullopt});
            continue;
        }
        if (it->second == place) {
            ++diff.unchanged;
        } else {
            diff.moved.push_back({name, place, it->second});
        }
        later.erase(it);
    }
    for (const auto& [name, place] : after.tensors) {
        if (later.contains(name)) {
            diff.moved.push_back({name, std::nullopt, place});
        }
    }
    return diff;
}

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
