#include "simulator/trace/capture_replay.hpp"

#include "simulator/model/plan.hpp"

#include <algorithm>
#include <variant>

namespace gallocsim {

namespace {

std::string short_name(CapturedFunction function) {
    return std::string(captured_function_name(function).substr(std::string_view("ggml_gallocr_").size()));
}

// Passes every event on, and notes whether the call planned (alloc_graph plans only when
// needs_realloc says so, or a buffer is missing).
class PlanWatcher final : public EventListener {
public:
    explicit PlanWatcher(AllocationObserver* inner) : inner_(inner) {}
    bool planned() const { return planned_; }

    void on(const Observed<event::PlanStarted>& e) override {
        planned_ = true;
        if (inner_) {
            inner_->on(e);
        }
    }
    void on_event(const ObservedEvent& e) override {
        if (inner_) {
            std::visit([this](const auto& event) { inner_->on(event); }, e);
        }
    }

private:
    AllocationObserver* inner_;
    bool planned_ = false;
};

CallReplay outcome_of(std::size_t index, CallOutcome outcome, std::string error) {
    CallReplay replay;
    replay.index = index;
    replay.outcome = outcome;
    replay.error = std::move(error);
    return replay;
}

void add_difference(std::vector<std::string>& differences, std::optional<std::string> difference) {
    if (difference) {
        differences.push_back(std::move(*difference));
    }
}

} // namespace

ProgramGgml program_ggml(const CaptureSession& session) {
    ProgramGgml program{session.ggml_version, session.ggml_commit, {}};
    for (const MarkerFunction& marker : kMarkerFunctions) {
        const auto found = session.ggml_functions.find(std::string(marker.name));
        if (found == session.ggml_functions.end()) {
            program.markers.clear();  // not recorded (an older capture): no marker counts
            break;
        }
        program.markers.push_back(found->second);
    }
    return program;
}

VersionMatch session_profile(const CaptureSession& session) { return match_ggml(program_ggml(session)); }

SessionAllocator make_session_allocator(const CaptureSession& session, const AllocatorProfile& profile) {
    SessionAllocator made;
    made.types = make_buffer_types(session.buffer_types);
    std::vector<BufferType*> ids;
    for (int type : session.buffers) {
        ids.push_back(made.types[static_cast<std::size_t>(type)].get());
    }
    made.allocator = std::make_unique<GraphAllocator>(ids, profile);
    return made;
}

SessionReplayer::SessionReplayer(const CaptureSession& session, const AllocatorProfile& profile)
    : session_(&session), allocator_(make_session_allocator(session, profile)) {}

CallReplay SessionReplayer::replay_next(AllocationObserver* observer, WorkingGraph* graph) {
    const std::size_t index = next_++;
    const CapturedCall& call = session_->calls.at(index);
    if (auto type = call.unknown_alloc_size()) {
        stopped_ = true;
        stop_reason_ = "call " + std::to_string(index) + " could not be replayed";
        return outcome_of(index, CallOutcome::not_replayed,
                          "not replayable: buffer type '" + session_->buffer_types[*type].name +
                              "' sized tensors by a rule the format cannot name (" + call.alloc_size[*type].example + ")");
    }
    if (graph != nullptr) {
        CallReplay replay = run(call, *graph, observer);
        previous_graph_.reset();
        return replay;
    }
    WorkingGraph loaded;
    try {
        loaded = working_copy(load_call_graph(*session_, call));
    } catch (const GraphFileError& error) {
        stopped_ = true;
        stop_reason_ = "the graph of call " + std::to_string(index) + " could not be loaded";
        return outcome_of(index, CallOutcome::failed, error.what());
    }
    CallReplay replay = run(call, loaded, observer);
    previous_graph_ = std::move(loaded);
    return replay;
}

CallReplay SessionReplayer::run(const CapturedCall& call, WorkingGraph& graph, AllocationObserver* observer) {
    GraphAllocator& allocator = *allocator_.allocator;
    // What the program's buffer types did on this call: the sizes they gave tensors no rule
    // fits, and what they add to the buffers they allocate.
    for (std::size_t t = 0; t < allocator_.types.size(); ++t) {
        BufferTypeSettings settings = allocator_.types[t]->settings();
        settings.tensor_sizes = graph.tensor_sizes;
        if (call.buffer_extra) {
            settings.buffer_extra = (*call.buffer_extra)[t];
        }
        allocator_.types[t]->set_settings(std::move(settings));
    }
    graph.forget_addresses();
    PlanWatcher watcher(observer);
    allocator.set_observer(&watcher);
    PlanRecord expected;
    expected.buffer_sizes = call.buffer_sizes;
    expected.chunk_sizes = call.chunk_sizes;
    bool ok = false;
    std::optional<std::vector<std::size_t>> sizes;
    switch (call.function) {
    case CapturedFunction::reserve:
    case CapturedFunction::reserve_n:
        ok = allocator.reserve_n(graph.graph, graph.node_buffer_ids, graph.leaf_buffer_ids);
        break;
    case CapturedFunction::reserve_n_size:
        sizes = allocator.reserve_n_size(graph.graph, graph.node_buffer_ids, graph.leaf_buffer_ids);
        ok = sizes.has_value();
        break;
    case CapturedFunction::alloc_graph:
        ok = allocator.alloc_graph(graph.graph);
        break;
    }
    allocator.set_observer(nullptr);

    CallReplay replay = outcome_of(static_cast<std::size_t>(call.number), CallOutcome::passed, {});
    replay.replanned = watcher.planned();
    if (!ok) {
        replay.error = allocator.last_error();
    }
    const bool allocates = call.function == CapturedFunction::alloc_graph;
    PlanRecord actual = record_plan(graph, allocator, !allocates && ok, allocates && ok);
    expected.reserve = !allocates && call.returned.value_or(actual.reserve);
    expected.alloc_graph = allocates && call.returned.value_or(false);
    // The session names the places it observed; they are read into the ids of the call's graph
    // here. A name the graph lacks got no memory there (compare_plans says so).
    std::vector<NamedPlacement> unknown;
    if (call.tensors) {
        const TensorsByName by_name = tensors_by_name(graph.context);
        for (const NamedPlacement& named : *call.tensors) {
            if (const auto found = by_name.find(named.first); found != by_name.end()) {
                expected.tensors.push_back({found->second, named.second});
            } else {
                unknown.push_back(named);
            }
        }
        std::ranges::sort(expected.tensors, {}, &PlacedTensor::tensor);
    } else {
        actual.tensors.clear();  // the call observed no places (a reserve, or alloc_graph that failed)
    }
    if (call.replanned) {
        add_difference(replay.differences, compare_values("replanned", *call.replanned, replay.replanned));
    }
    if (call.sizes) {
        add_difference(replay.differences, compare_values("sizes", *call.sizes, sizes.value_or(std::vector<std::size_t>{})));
    }
    for (std::string& difference : compare_plans(expected, actual, graph.context, unknown)) {
        replay.differences.push_back(std::move(difference));
    }
    replay.outcome = replay.differences.empty() ? CallOutcome::passed : CallOutcome::failed;
    if (replay.replanned) {
        plan_call_ = replay.index;
    }
    replay.plan_call = plan_call_;
    return replay;
}

std::vector<CallReplay> SessionReplayer::remaining() const {
    std::vector<CallReplay> rest;
    for (std::size_t i = next_; stopped_ && i < session_->calls.size(); ++i) {
        rest.push_back(outcome_of(i, CallOutcome::not_replayed, "not replayed: " + stop_reason_));
    }
    return rest;
}

std::vector<CallReplay> replay_session(const CaptureSession& session, const AllocatorProfile& profile) {
    SessionReplayer replayer(session, profile);
    std::vector<CallReplay> replays;
    while (!replayer.done()) {
        replays.push_back(replayer.replay_next());
    }
    for (CallReplay& rest : replayer.remaining()) {
        replays.push_back(std::move(rest));
    }
    return replays;
}

namespace {

// Replays calls [replayer.next_call(), end) untraced; throws when one cannot be replayed.
void replay_until(SessionReplayer& replayer, const CaptureSession& session, std::size_t end) {
    while (replayer.next_call() < end) {
        CallReplay replay = replayer.replay_next();
        if (replayer.stopped()) {
            throw GraphFileError(session.label() + ": call " + std::to_string(end) + " cannot be reached: call " +
                                 std::to_string(replay.index) + ": " + replay.error);
        }
    }
}

} // namespace

CallTrace trace_call(const CaptureSession& session, std::size_t index, const AllocatorProfile& profile) {
    if (index >= session.calls.size()) {
        throw GraphFileError(session.label() + ": there is no call " + std::to_string(index) + " (the session has " +
                             std::to_string(session.calls.size()) + ")");
    }
    // First pass: which call made the plan this call uses (only a replay can tell).
    SessionReplayer scout(session, profile);
    replay_until(scout, session, index);
    const CallReplay target = scout.replay_next();
    if (scout.stopped()) {
        throw GraphFileError(session.label() + ": call " + std::to_string(index) + ": " + target.error);
    }
    const CapturedCall& call = session.calls[index];
    const std::size_t plan_call = target.plan_call;
    const CapturedCall& planner = session.calls[plan_call];

    CallTrace traced;
    traced.file = load_call_graph(session, call);
    traced.plan_call = plan_call;
    SessionReplayer replayer(session, profile);
    replay_until(replayer, session, plan_call);
    if (plan_call == index) {
        WorkingGraph planned = working_copy(traced.file);
        TraceRecorder recorder(traced.file, planned, profile);
        const CallReplay replay = replayer.replay_next(&recorder, &planned);
        traced.trace = recorder.take(replay.error);
        traced.note = short_name(call.function) + (call.is_reserve() ? " planned the graph" : " re-planned the graph");
        return traced;
    }
    const std::string reused = short_name(call.function) + " reused the plan of call " + std::to_string(plan_call) +
                               " (" + short_name(planner.function) + ")";
    if (planner.graph != call.graph) {
        // Another graph that fits the plan (llama.cpp reserves a worst case, then places
        // smaller graphs in it): its tensors are not the planned ones, so one trace cannot
        // hold both. Shown is this call's own graph, its tensors placed where the plan puts
        // the tensor at each position; the planning is that call's own trace.
        replay_until(replayer, session, index);
        WorkingGraph own = working_copy(traced.file);
        TraceRecorder recorder(traced.file, own, profile);
        const CallReplay replay = replayer.replay_next(&recorder, &own);
        traced.trace = recorder.take(replay.error);
        traced.note = reused + ", made on another graph (" + planner.graph +
                      "): shown is this call's placement on its own graph (pick call " + std::to_string(plan_call) +
                      " to see the planning)";
        return traced;
    }
    // The same graph file: the planning and this call's placement in one trace.
    WorkingGraph planned = working_copy(traced.file);
    TraceRecorder recorder(traced.file, planned, profile);
    replayer.replay_next(&recorder, &planned);
    replay_until(replayer, session, index);
    const CallReplay replay = replayer.replay_next(&recorder, &planned);
    traced.trace = recorder.take(replay.error);
    traced.note = reused + ": its planning, then this call's placement";
    return traced;
}

} // namespace gallocsim
