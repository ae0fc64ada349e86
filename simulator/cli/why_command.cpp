// `gallocsim why`: why each buffer is as large as it is. For each buffer: its size, the event
// and node step where its high-water mark was set, the tensors live then (largest first,
// each with what keeps it alive), the holes below the high-water mark then (and the free
// that left each), and against that the in-place-aware lower bound and the best other
// planner on the same blocks: how many bytes the allocator's choices cost. The answer is
// built as data (analysis/why_report.hpp); this file prints it and declares the options.
#include "simulator/model/visible_text.hpp"

#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/why_report.hpp"
#include "simulator/cli/errors.hpp"
#include "simulator/trace/explain.hpp"
#include "simulator/trace/peak.hpp"
#include "simulator/trace/scheduler_splits.hpp"

#include "simulator/cli/command_list.hpp"
#include "simulator/cli/graph_input.hpp"
#include "simulator/cli/graph_notes.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace gallocsim::cli {

namespace {

using nlohmann::json;

struct WhyOptions {
    GraphInput graph;
    bool json = false;  // one JSON object (docs/graph-format.md#why-reports)
    bool full_names = false;  // names whole in the lists of live tensors (else cut at kNameColumns)
};

void print_text(const Trace& trace, const GraphLifetimes& lifetimes, const std::vector<BufferAnswer>& answers,
                const std::string& planned_by, std::size_t name_limit, std::ostream& out) {
    const SchedulerSplits splits = scheduler_splits(trace);
    out << trace.graph_name << ": " << counted(answers.size(), "buffer");
    if (!splits.empty()) {
        out << ", " << splits_summary(trace, splits);
    }
    out << "; " << planned_by << "\n";
    for (const BufferAnswer& answer : answers) {
        const BufferWords words = buffer_words(trace, lifetimes, splits, answer);
        out << "\n" << words.title << "\n";
        if (!words.empty.empty()) {
            out << "  " << words.empty << "\n";
            continue;
        }
        out << "  " << words.high_water << "\n  " << words.live << "\n";
        std::size_t width = 6;
        for (const LiveTensorWords& t : words.live_tensors) {
            width = std::max(width, std::min(display_width(trace.tensor(t.tensor).name), name_limit));
        }
        for (const LiveTensorWords& t : words.live_tensors) {
            out << "    " << padded(shortened(trace.tensor(t.tensor).name, name_limit), width) << "  " << std::left
                << std::setw(10) << t.op;
            if (!splits.empty()) {
                out << std::setw(10) << t.split;
            }
            out << std::right << std::setw(12) << t.bytes << " bytes  " << t.kept_by;
            if (!t.without.empty()) {
                out << "; " << t.without;
            }
            out << "\n";
        }
        out << "  " << words.live_by_op << "\n  " << words.live_by_layer << "\n  " << words.holes << "\n";
        for (const HoleWords& hole : words.hole_list) {
            out << "    " << hole.title << "\n";
            for (const std::string& line : hole.lines) {
                out << "      " << line << "\n";
            }
        }
        for (const std::string* line : {&words.bound, &words.bound_at, &words.verdict}) {
            if (!line->empty()) {
                out << "  " << *line << "\n";
            }
        }
    }
}

json hole_json(const Trace& trace, const HoleAnswer& answer) {
    const PeakHole& hole = *answer.hole;
    const auto tensor_name = [&](TensorId id) { return id != kNoTensor ? json(trace.tensor(id).name) : json(); };
    json runs = json::array();
    for (const HoleBytes& run : hole.bytes) {
        runs.push_back({{"offset", run.offset},
                        {"bytes", run.size},
                        {"last_holder", tensor_name(run.last_holder)},
                        {"freed_at_event", run.freed_at ? json(*run.freed_at + 1) : json()}});
    }
    json makers = json::array();
    for (const HoleMaker& maker : answer.makers) {
        makers.push_back({{"tensor", trace.tensor(maker.tensor).name},
                          {"bytes", maker.bytes},
                          {"size_without_it", maker.size_without ? json(*maker.size_without) : json()}});
    }
    json passed = nullptr;
    if (hole.passed_over_by) {
        const TailRequest& request = *hole.passed_over_by;
        passed = {{"event", request.event + 1}, {"tensor", trace.tensor(request.tensor).name}, {"bytes", request.bytes}};
    }
    const std::optional<std::size_t> completed = hole.completed_at();
    return {{"chunk", hole.chunk},
            {"offset", hole.offset},
            {"bytes", hole.size},
            {"runs", std::move(runs)},
            {"completed_at_event", completed ? json(*completed + 1) : json()},
            {"passed_over_by", std::move(passed)},
            {"makers", std::move(makers)},
            {"text", hole_stays_text(trace, hole)}};
}

json to_json(const Trace& trace, const GraphLifetimes& lifetimes, const std::vector<BufferAnswer>& answers) {
    const SchedulerSplits splits = scheduler_splits(trace);
    json buffers = json::array();
    for (const BufferAnswer& a : answers) {
        const BufferPeak& peak = *a.peak;
        json buffer{{"buffer", peak.buffer_id},        {"type", a.type->name},
                    {"size", peak.size},               {"chunk_sizes", peak.chunk_sizes},
                    {"holes_bytes", peak.hole_bytes()}, {"lower_bound", a.lower_bound()},
                    {"best_alternative", a.best_alternative()}, {"best_alternative_planner", a.best_planner()},
                    {"best_alternative_note", a.arena != nullptr ? a.arena->best_alternative().outcome.note : ""},
                    {"best_alternative_optimal", a.arena != nullptr && a.arena->best_alternative().outcome.proved_optimal}};
        if (a.arena != nullptr) {
            const int step = a.arena->lower_bound.step;
            const TensorId node = trace.tensors.node_at_step(step);
            json live = json::array();
            for (const LiveBlock& block : a.arena->live_at_bound) {
                live.push_back({{"blocks", block.name}, {"bytes", block_bytes(block)}});
            }
            buffer["lower_bound_at"] = {
                {"node_step", step},
                {"node", node != kNoTensor ? json(trace.tensor(node).name) : json()},
                {"live", std::move(live)}};
        } else {
            buffer["lower_bound_at"] = nullptr;
        }
        if (peak.event) {
            const TraceEvent& e = trace.events[*peak.event];
            buffer["peak"] = {{"event", *peak.event + 1},
                              {"kind", kind_name(kind_of(e))},
                              {"node_step", node_step(trace, e)},
                              {"node", e.node != kNoTensor ? json(trace.tensor(e.node).name) : json()}};
        } else {
            buffer["peak"] = nullptr;
        }
        buffer["live"] = json::array();
        for (const PeakTensor& t : peak.live) {
            const TraceTensor& tensor = trace.tensor(t.tensor);
            const auto i = static_cast<std::size_t>(&t - peak.live.data());
            const json without = i < a.size_without.size() && a.size_without[i] ? json(*a.size_without[i]) : json();
            buffer["live"].push_back({{"name", tensor.name},
                                      {"size_without_it", without},
                                      {"op", op_name(tensor.op)},
                                      {"bytes", t.bytes},
                                      {"chunk", t.address.chunk},
                                      {"offset", t.address.offset},
                                      {"kept_by", lifetime_end_text(trace, lifetimes, t.tensor)},
                                      {"split", splits.split_of(tensor) ? json(*splits.split_of(tensor)) : json()}});
        }
        const auto groups_json = [](const std::vector<LiveGroup>& groups) {
            json list = json::array();
            for (const LiveGroup& group : groups) {
                list.push_back({{"name", group.name}, {"bytes", group.bytes}, {"tensors", group.tensors}});
            }
            return list;
        };
        buffer["live_by_op"] = groups_json(a.live_by_op);
        buffer["live_by_layer"] = groups_json(a.live_by_layer);
        buffer["holes"] = json::array();
        for (const HoleAnswer& answer : a.holes) {
            buffer["holes"].push_back(hole_json(trace, answer));
        }
        buffers.push_back(std::move(buffer));
    }
    json split_list = json::array();
    for (const SchedulerSplit& split : splits.splits) {
        split_list.push_back({{"first_node_step", split.first_node + 1},
                              {"last_node_step", split.end_node},
                              {"inputs", split.inputs},
                              {"buffer", split.buffer_id ? json(*split.buffer_id) : json()}});
    }
    return {{"graph", trace.graph_name}, {"events", trace.size()}, {"node_steps", trace.node_count},
            {"splits", split_list}, {"buffers", buffers}};
}

int why(const WhyOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&] {
        GraphFile file = load_graph_input(options.graph);
        auto warnings = note_early_reads(file, input_name(options.graph), err);
        const Rules rules = chosen_rules(options.graph);
        const AllocatorProfile& profile = rules.profile();
        // One plan: the peaks, the lifetimes and the comparison are all read off it; then the
        // what-if plans take its working copy of the graph (its places are read by then).
        GgmlPlan ggml = run_ggml_plan(file, profile);
        const Trace& trace = ggml.trace;
        const std::vector<BufferPeak> peaks = buffer_peaks(trace);
        const Comparison comparison = compare_planners(file, ggml, ExactLimits{});
        const std::vector<BufferAnswer> answers = why_answers(file, profile, trace, comparison, peaks, std::move(ggml.run));
        if (options.json) {
            json report = to_json(trace, ggml.lifetimes, answers);
            report["warnings"] = std::move(warnings);
            out << report.dump(2, ' ', /*ensure_ascii=*/true) << "\n";
        } else {
            print_text(trace, ggml.lifetimes, answers, planned_by(options.graph, file), name_columns(options.full_names), out);
        }
        if (!trace.error.empty()) {
            err << input_name(options.graph) << ": " << trace.error << "\n";
            return kFailed;
        }
        return kDone;
    });
}

} // namespace

// The subcommand on the command line (cli/command_list.hpp).
Subcommand add_why_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<WhyOptions>();
    auto* command = app.add_subcommand("why", "why each buffer is as large as it is: where its size was set, what was live, "
                                              "the holes, and the lower bound");
    add_graph_input(command, options->graph);
    command->add_flag("--json", options->json, "one JSON object with a `buffers` list");
    add_full_names_flag(command, options->full_names);
    return {command, [options, &io] { return why(*options, io.out, io.err); }};
}

} // namespace gallocsim::cli
