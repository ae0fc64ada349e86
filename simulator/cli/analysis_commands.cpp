#include "simulator/cli/analysis_commands.hpp"
#include "simulator/model/visible_text.hpp"

#include "simulator/cli/errors.hpp"
#include "simulator/model/policy_file.hpp"

#include "simulator/model/amount_text.hpp"
#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/plan_diff.hpp"
#include "simulator/analysis/rule_effects.hpp"
#include "simulator/analysis/planner_table.hpp"
#include "simulator/analysis/minimalloc.hpp"
#include "simulator/analysis/render.hpp"
#include "simulator/trace/peak.hpp"
#include "simulator/trace/trace.hpp"

#include "simulator/cli/command_list.hpp"
#include "simulator/cli/json_output.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

namespace gallocsim::cli {

namespace fs = std::filesystem;

namespace {

std::string ratio(std::size_t size, std::size_t reference) {
    if (reference == 0) {
        return "-";
    }
    std::ostringstream s;
    s << std::fixed << std::setprecision(3) << static_cast<double>(size) / static_cast<double>(reference);
    return s.str();
}

std::string signed_change(std::size_t before, std::size_t after) {
    std::ostringstream s;
    if (after >= before) {
        s << "+" << after - before;
    } else {
        s << "-" << before - after;
    }
    if (before != 0) {
        s << ", " << std::showpos << std::fixed << std::setprecision(1)
          << 100.0 * (static_cast<double>(after) - static_cast<double>(before)) / static_cast<double>(before) << "%";
    }
    return s.str();
}

std::string place_text(const std::optional<Placement>& place) {
    if (!place) {
        return "-";
    }
    return std::to_string(place->buffer_id) + ":" + std::to_string(place->chunk) + ":" + std::to_string(place->offset);
}

std::string sizes_text(const std::vector<std::size_t>& sizes) {
    std::string text = "[";
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        text += (i ? ", " : "") + std::to_string(sizes[i]);
    }
    return text + "]";
}

// With `progress`, a search that runs past 0.1 s draws a bar of its time limit on `err`, with
// where it stands, and wipes it when the next line is printed.
ExactLimits limits_for(double seconds, bool progress, std::ostream& err) {
    ExactLimits limits;
    limits.time_limit = std::chrono::milliseconds(static_cast<long long>(std::max(seconds, 0.0) * 1000));
    if (progress) {
        limits.progress = [&err, total = std::max(seconds, 1e-3)](const ExactProgress& at) {
            constexpr int kWidth = 20;
            const int done = std::clamp(static_cast<int>(at.elapsed.count() / total * kWidth), 0, kWidth);
            err << "\r  exact search [" << std::string(static_cast<std::size_t>(done), '#')
                << std::string(static_cast<std::size_t>(kWidth - done), ' ') << "] best " << binary_size(at.best) << ", bound "
                << binary_size(at.lower_bound) << ", trying " << binary_size(at.trying) << "   " << std::flush;
        };
    }
    return limits;
}

void wipe_progress(bool progress, std::ostream& err) {
    if (progress) {
        err << "\r\033[K" << std::flush;
    }
}

// Rows of planner results: name, bytes, and the ratios to the bound and to no reuse.
class SizeTable {
public:
    SizeTable(std::ostream& out, std::size_t bound, std::size_t no_reuse) : out_(out), bound_(bound), no_reuse_(no_reuse) {
        out_ << "  " << std::left << std::setw(28) << "planner" << std::right << std::setw(14) << "bytes" << std::setw(12)
             << "" << std::setw(14) << "/ lower bound" << std::setw(12) << "/ no reuse" << "\n";
    }
    void row(const std::string& name, std::size_t bytes, const std::string& note = {}) {
        out_ << "  " << std::left << std::setw(28) << name << std::right << std::setw(14) << bytes << std::setw(12)
             << binary_size(bytes) << std::setw(14) << ratio(bytes, bound_) << std::setw(12) << ratio(bytes, no_reuse_)
             << (note.empty() ? "" : "  " + note) << "\n";
    }

private:
    std::ostream& out_;
    std::size_t bound_;
    std::size_t no_reuse_;
};

// One row per planner of the registry, in its order (run_every_planner's outcomes).
void print_alternatives(SizeTable& table, const std::vector<PlannerOutcome>& outcomes) {
    for (std::size_t p = 0; p < outcomes.size(); ++p) {
        table.row(std::string(planners()[p].title), outcomes[p].plan.size, outcomes[p].note);
    }
}

void print_violations(const std::vector<Violation>& violations, std::ostream& out) {
    for (const Violation& v : violations) {
        out << "  " << violation_kind_name(v.kind) << ": " << v.message << "\n";
    }
}

std::vector<std::string> step_labels(const GraphFile& file, const GraphLifetimes& lifetimes) {
    std::vector<std::string> labels;
    for (int step = 0; step < lifetimes.step_count; ++step) {
        labels.push_back(step_label(file, step));
    }
    return labels;
}

// The node step an event (counted from 1) of the plan's trace belongs to.
std::size_t node_step_of_event(const Trace& trace, std::size_t event) {
    if (event == 0 || event > trace.size()) {
        throw UsageError("--at-event " + std::to_string(event) + ": the trace has events 1 to " + std::to_string(trace.size()));
    }
    return node_step(trace, trace.events[event - 1]);
}

nlohmann::json violations_json(const std::vector<Violation>& violations) {
    nlohmann::json list = nlohmann::json::array();
    for (const Violation& v : violations) {
        list.push_back({{"kind", violation_kind_name(v.kind)}, {"tensor", v.tensor_name}, {"other", v.other_name}, {"message", v.message}});
    }
    return list;
}

nlohmann::json bound_json(const GraphFile& file, const PeakUsage& bound) {
    return {{"bytes", bound.bytes}, {"node_step", bound.step}, {"node", step_label(file, bound.step)}};
}

nlohmann::json comparison_json(const GraphFile& file, const std::string& name, const Comparison& comparison) {
    using nlohmann::json;
    json types = json::array();
    for (const ArenaComparison& arena : comparison.arenas) {
        json planners = json::array();
        for (const AlternativePlan& alternative : arena.alternatives) {
            planners.push_back({{"key", alternative.planner->key},
                                {"title", alternative.planner->title},
                                {"bytes", alternative.outcome.plan.size},
                                {"proved_optimal", alternative.outcome.proved_optimal},
                                {"note", alternative.outcome.note}});
        }
        const AlternativePlan& best = arena.best_alternative();
        types.push_back({{"name", arena.buffer_type},
                         {"alignment", arena.alignment},
                         {"tensors", arena.tensors},
                         {"blocks", arena.blocks},
                         {"ggml", {{"bytes", arena.ggml_size}, {"chunks", arena.ggml_chunks}}},
                         {"lower_bound", bound_json(file, arena.lower_bound)},
                         {"bound_without_in_place", bound_json(file, arena.bound_without_in_place)},
                         {"no_reuse", arena.no_reuse},
                         {"planners", planners},
                         {"best_alternative", {{"key", best.planner->key}, {"bytes", best.outcome.plan.size}}},
                         {"planner_violations", violations_json(arena.planner_violations)}});
    }
    return {{"graph", name},
            {"nodes", file.graph.nodes.size()},
            {"leafs", file.graph.leafs.size()},
            {"ggml_error", comparison.ggml_error.empty() ? json() : json(comparison.ggml_error)},
            {"ggml_violations", violations_json(comparison.ggml_violations)},
            {"buffer_types", types}};
}

} // namespace

int compare(const CompareOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&] {
        GraphFile file = load_graph_input(options.graph);
        const bool progress = options.progress && !options.json;
        const Rules rules = chosen_rules(options.graph);
        const Comparison comparison = compare_planners(file, run_ggml_plan(file, rules.profile()),
                                                       limits_for(options.time_limit, progress, err));
        wipe_progress(progress, err);
        const bool planners_ok = std::ranges::all_of(comparison.arenas, [](const auto& a) { return a.planner_violations.empty(); });
        const int code = comparison.ggml_error.empty() && comparison.ggml_violations.empty() && planners_ok ? 0 : 1;
        if (options.json) {
            out << json_report(comparison_json(file, file.name.empty() ? options.graph.input : file.name, comparison)) << "\n";
            return code;
        }
        out << (file.name.empty() ? options.graph.input : file.name) << ": " << counted(file.graph.nodes.size(), "node") << ", "
            << counted(file.graph.leafs.size(), "leaf") << "; "
            << planned_by(options.graph, file) << "\n";
        if (!comparison.ggml_error.empty()) {
            out << "ggml's plan failed: " << comparison.ggml_error << "\n";
        }
        const PlannerTable sizes = planner_table(file, comparison);
        for (std::size_t column = 0; column < comparison.arenas.size(); ++column) {
            const ArenaComparison& arena = comparison.arenas[column];
            out << "\nbuffer type " << arena.buffer_type << " (alignment " << arena.alignment << "): " << arena.tensors
                << " tensors with memory of their own, " << arena.blocks << " blocks once ggml's in-place chains are joined\n";
            SizeTable table(out, arena.lower_bound.bytes, arena.no_reuse);
            for (const PlannerRow& row : sizes.rows) {
                table.row(row.label, row.cells[column].bytes, row.note_text(row.cells[column]));
            }
            print_violations(arena.planner_violations, out);
        }
        out << "\n" << kPlannerTableFootnote;
        if (comparison.ggml_error.empty()) {
            if (comparison.ggml_violations.empty()) {
                out << "checker: ggml's plan keeps every rule\n";
            } else {
                out << "checker: ggml's plan breaks " << comparison.ggml_violations.size() << " rule(s):\n";
                print_violations(comparison.ggml_violations, out);
            }
        }
        return code;
    });
}

namespace {

// ", alignment 64, max_size 4096": the buffer settings a plan was made with, beyond the file's.
// "1 tensor moved, 2 unchanged", with the tensors only one plan has counted apart (two
// different graphs share few names, and a tensor B lacks did not move).
std::string tensor_counts(const PlanDiff& d) {
    std::size_t moved = 0, only_a = 0, only_b = 0;
    for (const TensorMove& m : d.moved) {
        (m.before && m.after ? moved : m.before ? only_a : only_b) += 1;
    }
    std::string text = std::to_string(moved) + (moved == 1 ? " tensor" : " tensors") + " moved, " +
                       std::to_string(d.unchanged) + " unchanged";
    if (only_a > 0) {
        text += ", " + std::to_string(only_a) + " only in A";
    }
    if (only_b > 0) {
        text += ", " + std::to_string(only_b) + " only in B";
    }
    return text;
}

std::string overrides_text(const BufferOverrides& changed) {
    std::string text;
    if (changed.alignment) {
        text += ", alignment " + std::to_string(*changed.alignment);
    }
    if (changed.max_size) {
        text += ", max_size " + std::to_string(*changed.max_size);
    }
    if (changed.alloc_size) {
        text += ", alloc_size " + std::string(alloc_size_rule_name(*changed.alloc_size));
    }
    return text;
}

nlohmann::json place_json(const std::optional<Placement>& place) {
    if (!place) {
        return nullptr;
    }
    return {{"buffer", place->buffer_id}, {"chunk", place->chunk}, {"offset", place->offset}};
}

nlohmann::json rule_changes_json(const std::vector<RuleEffect>& rules) {
    nlohmann::json list = nlohmann::json::array();
    for (const RuleEffect& rule : rules) {
        list.push_back({{"commit", rule.change->commit},
                        {"pr", rule.change->pr},
                        {"date", rule.change->date},
                        {"field", rule.change->field},
                        {"change", rule.change->sentence},
                        {"effect", rule.effect}});
    }
    return list;
}

nlohmann::json diff_json(const std::string& a, const std::string& b, const AllocatorProfile& profile_a,
                         const AllocatorProfile& profile_b, const GraphFile& file_a, const GraphFile& file_b,
                         const PlanRun& run_a, const PlanRun& run_b, const PlanDiff& d, const std::vector<RuleEffect>& rules) {
    using nlohmann::json;
    auto plan_json = [](const std::string& input, const AllocatorProfile& profile, const PlanRun& run) {
        return json{{"input", input}, {"ggml_version", profile.name}, {"error", run.error.empty() ? json() : json(run.error)}};
    };
    json buffers = json::array();
    const std::size_t ids = std::max(d.sizes_before.size(), d.sizes_after.size());
    for (std::size_t id = 0; id < ids; ++id) {
        auto at = [id](const auto& list, auto fallback) { return id < list.size() ? list[id] : fallback; };
        buffers.push_back({{"buffer", id},
                           {"bytes_a", at(d.sizes_before, std::size_t{0})},
                           {"bytes_b", at(d.sizes_after, std::size_t{0})},
                           {"chunks_a", at(d.chunks_before, std::vector<std::size_t>{})},
                           {"chunks_b", at(d.chunks_after, std::vector<std::size_t>{})}});
    }
    std::size_t moved = 0, only_a = 0, only_b = 0;
    json tensors = json::array();
    for (const TensorMove& m : d.moved) {
        (m.before && m.after ? moved : m.before ? only_a : only_b) += 1;
        tensors.push_back({{"name", moved_tensor_name(m, file_a, file_b)}, {"a", place_json(m.before)}, {"b", place_json(m.after)}});
    }
    return {{"a", plan_json(a, profile_a, run_a)},
            {"b", plan_json(b, profile_b, run_b)},
            {"buffers", buffers},
            {"moved", moved},
            {"unchanged", d.unchanged},
            {"only_in_a", only_a},
            {"only_in_b", only_b},
            {"tensors", tensors},
            {"rule_changes", rule_changes_json(rules)}};
}

} // namespace

// How a diff's header names the rules a plan was made by: "ggml version ggml-0a2b6b20",
// "policy through-views", "ggml version llama.cpp-0c1e570 (the default)" for a side no option named.
std::string rules_label(const AllocatorProfile& profile, bool defaulted) {
    if (!is_builtin_profile(profile)) {
        return "policy " + std::string(profile.name);
    }
    return "ggml version " + std::string(profile.name) + (defaulted ? " (the default)" : "");
}

int diff(const DiffOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&] {
        // Two versions (or policies) compare the same graph under the same settings: the
        // buffer options then apply to both plans.
        GraphInput before_input = options.before;
        if (options.ggml_versions.size() == 2) {
            before_input.buffers = options.after_buffers;
        }
        std::optional<std::string> standard_input;  // read once: `diff -` and `diff - -` plan one text twice
        GraphFile before = load_graph_input(before_input, standard_input);
        GraphInput after_input = options.before;
        if (!options.after.empty()) {
            after_input.input = options.after;
        }
        after_input.buffers = options.after_buffers;
        GraphFile after = load_graph_input(after_input, standard_input);
        if (options.ggml_versions.size() > 2) {
            throw UsageError("--ggml-version/--policy: at most two (plan A's, then plan B's), got " +
                                 std::to_string(options.ggml_versions.size()));
        }
        // One side named: it is B, measured against the default state (what a user runs today).
        const auto& versions = options.ggml_versions;
        const Rules rules_a = chosen_rules(versions.size() == 2 ? versions[0] : std::string());
        const Rules rules_b = chosen_rules(versions.empty() ? std::string() : versions.back());
        const AllocatorProfile& profile_a = rules_a.profile();
        const AllocatorProfile& profile_b = rules_b.profile();
        // The places are all a diff reads: bare plans, without a trace or lifetimes.
        const PlanRun run_before = run_plan(before, nullptr, profile_a);
        const PlanRun run_after = run_plan(after, nullptr, profile_b);
        for (const auto& [label, run] : {std::pair{"A", &run_before}, std::pair{"B", &run_after}}) {
            if (!run->error.empty()) {
                out << label << ": ggml's plan failed: " << run->error << "\n";
            }
        }
        const PlanDiff d = diff_plans(before, run_before.plan, after, run_after.plan);
        const int code = run_before.error.empty() && run_after.error.empty() ? 0 : 1;
        if (options.json) {
            const auto rules = version_rule_changes(after, profile_a, profile_b);
            out << json_report(diff_json(options.before.input, after_input.input, profile_a, profile_b, before, after, run_before, run_after, d, rules))
                << "\n";
            return code;
        }
        const std::string overrides = overrides_text(buffer_overrides(options.after_buffers));
        // Both sides are named whenever the rules were chosen, so a header never leaves one implied.
        const bool name_rules = &profile_a != &profile_b || !options.ggml_versions.empty();
        out << "A: " << options.before.input << (name_rules ? ", " + rules_label(profile_a, versions.size() < 2) : "")
            << (options.ggml_versions.size() == 2 ? overrides : "");
        out << "\nB: " << after_input.input << (name_rules ? ", " + rules_label(profile_b, versions.empty()) : "") << overrides;
        out << "\n\n";
        const std::size_t ids = std::max(d.sizes_before.size(), d.sizes_after.size());
        for (std::size_t id = 0; id < ids; ++id) {
            const std::size_t a = id < d.sizes_before.size() ? d.sizes_before[id] : 0;
            const std::size_t b = id < d.sizes_after.size() ? d.sizes_after[id] : 0;
            const GraphFile& named = id < before.buffers.size() ? before : after;
            out << "buffer " << id << " ("
                << named.buffer_types[static_cast<std::size_t>(named.buffers[id])].name << "): " << a << " -> " << b
                << " bytes (" << signed_change(a, b) << ")";
            const auto& ca = id < d.chunks_before.size() ? d.chunks_before[id] : std::vector<std::size_t>{};
            const auto& cb = id < d.chunks_after.size() ? d.chunks_after[id] : std::vector<std::size_t>{};
            if (ca != cb) {
                out << ", chunks " << sizes_text(ca) << " -> " << sizes_text(cb);
            }
            out << "\n";
        }
        out << tensor_counts(d) << "\n";
        if (!d.moved.empty()) {
            std::size_t width = 6;
            for (const TensorMove& m : d.moved) {
                width = std::max(width, std::min(display_width(moved_tensor_name(m, before, after)), name_columns(options.full_names)));
            }
            out << "\n" << padded("tensor", width) << "  " << std::left << std::setw(24)
                << "A buffer:chunk:offset" << "B buffer:chunk:offset\n";
            for (const TensorMove& m : d.moved) {
                out << padded(shortened(moved_tensor_name(m, before, after), name_columns(options.full_names)), width) << "  " << std::left << std::setw(24) << place_text(m.before)
                    << place_text(m.after) << "\n";
            }
        }
        if (&profile_a != &profile_b && (!is_builtin_profile(profile_a) || !is_builtin_profile(profile_b))) {
            out << "\nrules that differ between " << profile_a.name << " and " << profile_b.name << ": "
                << rule_differences_text(profile_a, profile_b) << "\n";
        } else if (&profile_a != &profile_b) {
            const auto rules = version_rule_changes(after, profile_a, profile_b);
            out << "\nupstream changes between " << profile_a.name << " and " << profile_b.name
                << " that changed this plan (each applied alone, oldest first):" << (rules.empty() ? " none" : "") << "\n";
            for (const RuleEffect& rule : rules) {
                out << "- " << describe_rule_change(*rule.change) << "\n  here: " << rule.effect << "\n";
            }
        }
        return code;
    });
}

int render(const RenderOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&]() -> int {
        GraphFile file = load_graph_input(options.graph);
        const Rules rules = chosen_rules(options.graph);
        const GgmlPlan ggml = run_ggml_plan(file, rules.profile());
        const GraphLifetimes& lifetimes = ggml.lifetimes;
        PlanPicture picture;
        if (options.planner == "ggml") {
            if (!ggml.run.error.empty()) {
                err << input_name(options.graph) << ": ggml's plan failed: " << ggml.run.error << "\n";
                return 1;
            }
            picture = ggml_plan_picture(file, ggml);
        } else {
            const Planner* planner = find_planner(options.planner);
            if (planner == nullptr) {
                throw UsageError("--planner: unknown planner \"" + options.planner + "\" (ggml, " + planner_keys() + ")");
            }
            picture.title = (file.name.empty() ? options.graph.input : file.name) + ": " + std::string(planner->title) + " plan";
            picture.step_labels = step_labels(file, lifetimes);
            // The same blocks compare gives the planners: ggml's in-place chains joined.
            for (const ArenaProblem& problem : in_place_arena_problems(file, lifetimes, ggml.in_place)) {
                if (problem.blocks.empty()) {
                    continue;
                }
                const ArenaPlan plan = planner->run(problem, ExactLimits{}).plan;
                PlanPicture arena = arena_plan_picture({}, problem, plan, {});
                picture.bands.push_back(std::move(arena.bands.front()));
            }
        }
        std::string svg;
        std::optional<int> at_step = options.memory_map_at;
        if (options.at_event) {
            at_step = static_cast<int>(node_step_of_event(ggml.trace, *options.at_event));
        }
        if (at_step) {
            if (*at_step < 0 || *at_step >= lifetimes.step_count) {
                throw UsageError("--at-step " + std::to_string(*at_step) + ": the graph has node steps 0 to " +
                                 std::to_string(lifetimes.step_count - 1));
            }
            svg = render_memory_map_svg(picture, *at_step);
        } else {
            svg = render_timeline_svg(picture);
        }
        return write_text(svg, options.output, out, err);
    });
}

int export_minimalloc(const ExportMiniMallocOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&]() -> int {
        GraphFile file = load_graph_input(options.graph);
        // The blocks compare gives the planners: each of ggml's in-place chains is one buffer,
        // since a node and the parent whose bytes it took share them by design.
        const Rules rules = chosen_rules(options.graph);
        const GgmlPlan ggml = run_ggml_plan(file, rules.profile());
        const std::vector<ArenaProblem> problems = in_place_arena_problems(file, ggml.lifetimes, ggml.in_place);
        std::vector<std::size_t> used;
        for (std::size_t t = 0; t < problems.size(); ++t) {
            if (!problems[t].blocks.empty()) {
                used.push_back(t);
            }
        }
        std::size_t type = used.empty() ? 0 : used.front();
        if (!options.buffer_type.empty()) {
            const auto it = std::ranges::find(file.buffer_types, options.buffer_type, &BufferTypeSpec::name);
            if (it == file.buffer_types.end()) {
                throw GraphFileError("--buffer-type: the graph has no buffer type \"" + options.buffer_type + "\"");
            }
            type = static_cast<std::size_t>(it - file.buffer_types.begin());
        } else if (used.size() > 1) {
            std::string names;
            for (std::size_t t : used) {
                names += (names.empty() ? "" : ", ") + file.buffer_types[t].name;
            }
            throw GraphFileError(input_name(options.graph) + ": tensors live in " + std::to_string(used.size()) +
                                 " buffer types (" + names + "); choose one with --buffer-type");
        }
        const ArenaProblem& problem = problems.at(type);
        if (!options.offsets) {
            return write_text(to_minimalloc_csv(problem), options.output, out, err);
        }
        // ggml's offsets, with the type's chunks laid end to end as one arena.
        if (!ggml.run.error.empty()) {
            err << input_name(options.graph) << ": ggml's plan failed: " << ggml.run.error << " (use --no-offsets)\n";
            return 1;
        }
        const auto id = static_cast<std::size_t>(std::ranges::find(file.buffers, static_cast<int>(type)) - file.buffers.begin());
        const std::vector<std::size_t>& chunks = ggml.run.plan.chunk_sizes.at(id);
        std::vector<const Placement*> placed(file.context.size(), nullptr);  // by tensor id
        for (const auto& [tensor, place] : ggml.run.plan.tensors) {
            placed.at(static_cast<std::size_t>(tensor)) = &place;
        }
        std::vector<std::size_t> offsets;
        for (const LiveBlock& block : problem.blocks) {
            const Placement* place = placed.at(static_cast<std::size_t>(block.tensor));
            if (place == nullptr || place->buffer_id != static_cast<int>(id)) {
                err << input_name(options.graph) << ": ggml placed '" << tensor_name(file.context, block.tensor)
                    << "' outside buffer " << id << " (" << problem.name << "); use --no-offsets\n";
                return 1;
            }
            std::size_t base = 0;
            for (int c = 0; c < place->chunk; ++c) {
                base += chunks.at(static_cast<std::size_t>(c));
            }
            offsets.push_back(base + place->offset);
        }
        return write_text(to_minimalloc_csv(problem, &offsets), options.output, out, err);
    });
}

int import_minimalloc(const ImportMiniMallocOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&] {
        const MiniMallocProblem input = load_minimalloc_csv(options.path);
        const ArenaProblem& problem = input.problem;
        const PeakUsage bound = lower_bound(problem.blocks);
        const std::size_t no_reuse = no_reuse_size(problem.blocks);
        out << options.path << ": " << problem.blocks.size() << " buffers\n\n";
        SizeTable table(out, bound.bytes, no_reuse);
        std::vector<Violation> file_violations;
        if (input.offsets) {
            const ArenaPlan given{*input.offsets, arena_height(problem.blocks, *input.offsets)};
            file_violations = check_plan(arena_plan_to_check(problem, given));
            table.row("offsets in the file", given.size, file_violations.empty() ? "valid" : "INVALID");
        }
        const std::vector<PlannerOutcome> outcomes = run_every_planner(problem, limits_for(options.time_limit, options.progress, err));
        wipe_progress(options.progress, err);
        print_alternatives(table, outcomes);
        // With alignments the bound is more than the live bytes: it counts the padding that
        // aligned offsets force between blocks stacked at once (lower_bound).
        const bool aligned = std::ranges::any_of(problem.blocks, [](const LiveBlock& b) { return b.alignment > 1; });
        table.row("lower bound", bound.bytes,
                  std::string(aligned ? "peak of live bytes stacked at aligned offsets" : "peak of live bytes") + ", at time " +
                      std::to_string(bound.step));
        table.row("no reuse", no_reuse);
        if (!file_violations.empty()) {
            out << "\nthe file's offsets break " << file_violations.size() << " rule(s)";
            // ggml's in-place reuse: a node takes its parent's bytes at the step the parent ends.
            // The checker's tensors are the blocks, in order (arena_plan_to_check).
            const std::size_t handoffs = static_cast<std::size_t>(std::ranges::count_if(file_violations, [&](const Violation& v) {
                auto hands_to = [](const LiveBlock& from, const LiveBlock& to) { return from.last == to.first && from.first < to.first; };
                if (v.kind != ViolationKind::overlap) {
                    return false;
                }
                const LiveBlock& a = problem.blocks.at(v.tensor);
                const LiveBlock& b = problem.blocks.at(v.other);
                return hands_to(a, b) || hands_to(b, a);
            }));
            if (handoffs > 0) {
                out << "; " << handoffs << " of them hand-offs (a block starts at the step another ends), which is "
                    << "how ggml's in-place reuse looks in this format";
            }
            out << ":\n";
            print_violations(file_violations, out);
        }
        return file_violations.empty() ? 0 : 1;
    });
}

int export_example(const std::string& name, const ModelFlags& flags, const std::string& output, std::ostream& out,
                   std::ostream& err) {
    return run_guarded(err, [&] {
        return write_text(graph_file_to_json(example_from_flags(name, flags)) + "\n", output, out, err);
    });
}

// The subcommands on the command line (cli/command_list.hpp).
Subcommand add_compare_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<CompareOptions>();
    auto* command = app.add_subcommand("compare", "ggml's plan against other planners, the lower bound and no reuse");
    add_graph_input(command, options->graph);
    command->add_option("--time-limit", options->time_limit, "seconds for each exact search (default 2)")
        ->check(CLI::Range(0.0, 86400.0));
    command->add_flag("--json", options->json, "one JSON object with a `buffer_types` list (docs/json-reports.md)");
    options->progress = io.err_is_terminal;
    return {command, [options, &io] { return compare(*options, io.out, io.err); }};
}

Subcommand add_diff_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<DiffOptions>();
    auto* command = app.add_subcommand("diff", "two plans of a graph: which tensors moved, how the sizes changed");
    command->add_option("a", options->before.input, "graph file, or example name: plan A")->required();
    command->add_option("b", options->after, "graph file or example: plan B (default: A again, with the buffer options)");
    command->add_option("--ggml-version,--policy", options->ggml_versions,
                        "the rules of plan B, against the default state for plan A; given twice, plan A's and then plan "
                        "B's: a state, a ggml version, a llama.cpp build bNNNN or a commit (gallocsim versions lists them; "
                        "default: the newest, " + std::string(newest_profile().name) + "), or a policy file (docs/policies.md)");
    add_model_flags(command, options->before.model);
    add_buffer_flags(command, options->after_buffers,
                     "Buffer options (plan B only; both plans when --ggml-version/--policy is given twice)");
    command->add_flag("--json", options->json, "one JSON object with `buffers` and `tensors` lists (docs/json-reports.md)");
    add_full_names_flag(command, options->full_names);
    return {command, [options, &io] { return diff(*options, io.out, io.err); }};
}

Subcommand add_render_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<RenderOptions>();
    auto* command = app.add_subcommand("render", "draw a plan as SVG: tensors over node steps, or the memory at one node step");
    add_graph_input(command, options->graph);
    command->add_option("-o,--output", options->output, "SVG file to write (default: standard output)");
    command->add_option("--planner", options->planner, "ggml (default), " + planner_keys());
    auto* at_step = command->add_option("--at-step,--memory-map-at", options->memory_map_at,
                                        "draw the memory after this node step instead (0: before the first node)");
    command->add_option("--at-event", options->at_event, "draw the memory at the node step of this event (from 1)")
        ->excludes(at_step);
    return {command, [options, &io] { return render(*options, io.out, io.err); }};
}

Subcommand add_export_minimalloc_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<ExportMiniMallocOptions>();
    auto no_offsets = std::make_shared<bool>(false);
    auto* command = app.add_subcommand("export-minimalloc", "write the lifetimes as MiniMalloc CSV (id,lower,upper,size,alignment,offset)");
    add_graph_input(command, options->graph);
    command->add_option("-o,--output", options->output, "CSV file to write (default: standard output)");
    command->add_option("--buffer-type", options->buffer_type, "which buffer type, when tensors live in several");
    command->add_flag("--no-offsets", *no_offsets, "leave out ggml's offsets");
    return {command, [options, no_offsets, &io] {
                options->offsets = !*no_offsets;
                return export_minimalloc(*options, io.out, io.err);
            }};
}

Subcommand add_import_minimalloc_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<ImportMiniMallocOptions>();
    auto* command = app.add_subcommand("import-minimalloc", "run the planners and the lower bound on a MiniMalloc CSV");
    command->add_option("csv", options->path, "MiniMalloc CSV file")->required();
    command->add_option("--time-limit", options->time_limit, "seconds for the exact search (default 2)")
        ->check(CLI::Range(0.0, 86400.0));
    options->progress = io.err_is_terminal;
    return {command, [options, &io] { return import_minimalloc(*options, io.out, io.err); }};
}

} // namespace gallocsim::cli
