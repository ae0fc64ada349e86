// The `gallocsim` command line: its flags (CLI11), a table from subcommand to function, and
// the exit code. main() only hands it the process's streams.
#include "simulator/cli/command_line.hpp"

#include "simulator/cli/analysis_commands.hpp"
#include "simulator/cli/capture_command.hpp"
#include "simulator/cli/commands.hpp"
#include "simulator/cli/errors.hpp"
#include "simulator/cli/step_commands.hpp"
#include "simulator/cli/visible_output.hpp"
#include "simulator/cli/versions_command.hpp"
#include "simulator/cli/why_command.hpp"

#include "simulator/analysis/planners.hpp"

#include "reference/profile.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <exception>
#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace gallocsim::cli {
namespace {

// The parameters of built-in examples (used when the input names one).
void add_model_flags(CLI::App* command, ModelFlags& flags) {
    const std::string group = "Example options";
    command->add_option("--layers", flags.layers, "transformer blocks / linear layers")->group(group);
    command->add_option("--embd", flags.embd, "model width")->group(group);
    command->add_option("--heads", flags.heads, "attention heads")->group(group);
    command->add_option("--ff", flags.ff, "feed-forward (hidden) width")->group(group);
    command->add_option("--tokens", flags.tokens, "tokens in the batch")->group(group);
    command->add_option("--vocab", flags.vocab, "vocabulary size")->group(group);
    command->add_option("--outputs", flags.outputs, "llama: tokens whose logits are computed")->group(group);
    command->add_option("--weights", flags.weights, "weight type (f32, f16, q4_0, q8_0, q4_k, ...)")->group(group);
    command->add_option("--buffers", flags.buffers, "cpu, cuda or split (CUDA0 + CPU)")->group(group);
    command->add_flag("--inplace", flags.inplace, "llama: in-place rope, scale, soft_max, silu, gate product")->group(group);
    command->add_flag("--mask", flags.mask, "llama: a kq_mask input for soft_max")->group(group);
    command->add_flag("--clamp", flags.clamp, "llama: Q, K and V clamped after their projections (olmo's clamp_kqv)")->group(group);
}

void add_buffer_flags(CLI::App* command, BufferFlags& flags, const std::string& group) {
    command->add_option("--alignment", flags.alignment, "alignment of every buffer type")->group(group);
    command->add_option("--max-size", flags.max_size, "max_size of every buffer type")->group(group);
    command->add_option("--alloc-size", flags.alloc_size, "alloc size rule of every buffer type: nbytes or cuda")->group(group);
}

const std::string kVersionHelp =
    "plan by the rules of this ggml allocator state, or of the state a ggml version carries (gallocsim versions "
    "lists them; default: the newest, " + std::string(newest_profile().name) + ")";

void add_graph_input(CLI::App* command, GraphInput& input) {
    command->add_option("input", input.input, "graph file (- reads standard input), or example name (see `gallocsim examples`)")->required();
    command->add_option("--ggml-version", input.ggml_version, kVersionHelp);
    add_model_flags(command, input.model);
    add_buffer_flags(command, input.buffers, "Buffer options");
}

// The commands by name, for the message about an unknown one.
std::string command_names(const CLI::App& app) {
    std::string names;
    for (const CLI::App* command : app.get_subcommands({})) {
        names += (names.empty() ? "" : ", ") + command->get_name();
    }
    return names;
}

std::string version_text() {
    const auto states = history_between(seed_era_profile(), newest_profile());
    return "gallocsim " GALLOCSIM_VERSION "\nggml allocator versions: " + std::to_string(states.size()) + " states, " +
           std::string(seed_era_profile().name) + " (" + std::string(seed_era_profile().date) + ") to " +
           std::string(newest_profile().name) + " (" + std::string(newest_profile().date) +
           ", the default); gallocsim versions lists them";
}

// Parses the command line; returns -1 to go on, else the exit code (help and --version: 0;
// anything wrong on the command line: kBadInput, with CLI11's message or ours).
int parse(CLI::App& app, int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    const auto subcommands = app.get_subcommands({});
    const bool known = argc >= 2 && std::ranges::any_of(subcommands, [&](const CLI::App* c) { return c->get_name() == argv[1]; });
    if (argc >= 2 && argv[1][0] != '-' && !known) {
        err << "gallocsim: unknown command \"" << argv[1] << "\"; the commands are " << command_names(app)
            << " (gallocsim --help says what each does)\n";
        return kBadInput;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& done) {  // --help, --version
        return app.exit(done, out, err);
    } catch (const CLI::ParseError& error) {
        if (argc < 2) {
            err << "gallocsim: no command given; the commands are " << command_names(app)
                << " (gallocsim --help says what each does)\n";
            return kBadInput;
        }
        app.exit(error, out, err);
        return kBadInput;
    }
    return -1;
}

} // namespace

int run_command_line(int argc, const char* const* argv, const Console& console) {
    std::istream& in = console.in;
    VisibleOutput visible_out(console.out), visible_err(console.err);
    std::ostream out(&visible_out), err(&visible_err);
    // Reading input shows what was printed first (a walk's prompt), as cin's tie to cout does.
    std::ostream* const tied = in.tie(&out);
    const struct Untie {
        std::istream& in;
        std::ostream* tied;
        ~Untie() { in.tie(tied); }
    } untie{in, tied};
    CLI::App app{"gallocsim: ggml's graph allocator, step by step"};
    app.require_subcommand(1);
    app.set_version_flag("--version", version_text());
    app.footer("Positions. An event is one entry of a plan's trace, counted from 1 (trace, walk, stats, why and\n"
               "the GUI's cursor step through events). A node step is a point in the graph's execution: 0 is\n"
               "before the first node, where leafs and inputs get memory; i is node i running, its parents still\n"
               "live (render, compare, lifetimes and the bounds count node steps). Every event belongs to one\n"
               "node step; options that take a position say which.");

    PlanOptions plan;
    auto* plan_cmd = app.add_subcommand("plan", "plan a graph file (or a built-in example) and print where every tensor goes");
    add_graph_input(plan_cmd, plan.graph);
    plan_cmd->add_flag("--json", plan.json, "write the plan in the graph format's `expected` shape");
    plan_cmd->add_option("--reserve-with", plan.reserve_with,
                         "reserve_n on this graph file or example (default parameters) first, then alloc_graph the input: "
                         "shows whether needs_realloc re-plans");
    plan_cmd->add_flag("--measure", plan.measure, "plan with reserve_n_size only: the bytes per buffer id");
    plan_cmd->get_option("--reserve-with")->excludes(plan_cmd->get_option("--measure"));
    plan_cmd->get_option("--json")->excludes(plan_cmd->get_option("--measure"))->excludes(plan_cmd->get_option("--reserve-with"));

    ConformOptions conform;
    auto* conform_cmd = app.add_subcommand("conform", "check that plans equal each file's `expected` plan (from upstream ggml), or replay captures call by call");
    conform_cmd->add_option("paths", conform.paths, "graph files, folders of them, or capture folders")->required();
    conform_cmd->add_flag("-v,--verbose", conform.verbose, "list passing files and calls too");
    conform_cmd->add_flag("--json", conform.json, "one JSON object: the counts and every verdict (docs/json-reports.md)");
    conform_cmd->add_option("--ggml-version", conform.ggml_version,
                            "plan every file by this ggml version (default: the one each file's expected.source names, "
                            "or for a capture the ggml version its program reported)");

    std::string example_name, example_output;
    ModelFlags example_flags;
    auto* examples_cmd = app.add_subcommand("examples", "list the built-in examples, or export one as a graph file");
    examples_cmd->add_option("name", example_name, "example to export");
    examples_cmd->add_option("-o,--output", example_output, "file to write (default: standard output)");
    add_model_flags(examples_cmd, example_flags);

    CompareOptions compare;
    auto* compare_cmd = app.add_subcommand("compare", "ggml's plan against other planners, the lower bound and no reuse");
    add_graph_input(compare_cmd, compare.graph);
    compare_cmd->add_option("--time-limit", compare.time_limit, "seconds for each exact search (default 2)");
    compare_cmd->add_flag("--json", compare.json, "one JSON object with a `buffer_types` list (docs/json-reports.md)");

    DiffOptions diff;
    auto* diff_cmd = app.add_subcommand("diff", "two plans of a graph: which tensors moved, how the sizes changed");
    diff_cmd->add_option("a", diff.before.input, "graph file, or example name: plan A")->required();
    diff_cmd->add_option("b", diff.after, "graph file or example: plan B (default: A again, with the buffer options)");
    diff_cmd->add_option("--ggml-version", diff.ggml_versions,
                         "ggml version of plan A; given twice, the second is plan B's (gallocsim versions lists them; "
                         "default: the newest)");
    add_model_flags(diff_cmd, diff.before.model);
    add_buffer_flags(diff_cmd, diff.after_buffers, "Buffer options (plan B only; both plans when --ggml-version is given twice)");
    diff_cmd->add_flag("--json", diff.json, "one JSON object with `buffers` and `tensors` lists (docs/json-reports.md)");

    RenderOptions render;
    auto* render_cmd = app.add_subcommand("render", "draw a plan as SVG: tensors over node steps, or the memory at one node step");
    add_graph_input(render_cmd, render.graph);
    render_cmd->add_option("-o,--output", render.output, "SVG file to write (default: standard output)");
    render_cmd->add_option("--planner", render.planner, "ggml (default), " + planner_keys());
    auto* at_step = render_cmd->add_option("--at-step,--memory-map-at", render.memory_map_at,
                                           "draw the memory after this node step instead (0: before the first node)");
    render_cmd->add_option("--at-event", render.at_event, "draw the memory at the node step of this event (from 1)")
        ->excludes(at_step);

    ExportMiniMallocOptions export_mm;
    auto* export_mm_cmd = app.add_subcommand("export-minimalloc", "write the lifetimes as MiniMalloc CSV (id,lower,upper,size,offset)");
    add_graph_input(export_mm_cmd, export_mm.graph);
    export_mm_cmd->add_option("-o,--output", export_mm.output, "CSV file to write (default: standard output)");
    export_mm_cmd->add_option("--buffer-type", export_mm.buffer_type, "which buffer type, when tensors live in several");
    bool no_offsets = false;
    export_mm_cmd->add_flag("--no-offsets", no_offsets, "leave out ggml's offsets");

    ImportMiniMallocOptions import_mm;
    auto* import_mm_cmd = app.add_subcommand("import-minimalloc", "run the planners and the lower bound on a MiniMalloc CSV");
    import_mm_cmd->add_option("csv", import_mm.path, "MiniMalloc CSV file")->required();
    import_mm_cmd->add_option("--time-limit", import_mm.time_limit, "seconds for the exact search (default 2)");

    TraceOptions trace;
    auto* trace_cmd = app.add_subcommand("trace", "record a plan step by step and explain every event");
    add_graph_input(trace_cmd, trace.graph);
    trace_cmd->add_flag("--json", trace.json,
                        "one JSON document: {\"trace\": header, \"events\": [one object per event]} (docs/json-reports.md)");
    trace_cmd->add_option("--from", trace.from, "first event to show (from 1)");
    trace_cmd->add_option("--to", trace.to, "last event to show");

    WalkOptions walk;
    auto* walk_cmd = app.add_subcommand("walk", "step through a plan interactively (commands on standard input; h for help)");
    add_graph_input(walk_cmd, walk.graph);
    walk_cmd->add_option("-e,--exec", walk.commands, "run this walk command instead of reading standard input "
                         "(repeat for more; each is shown after a \"> \" prompt)");
    walk_cmd->add_option("--checkpoint-every", walk.checkpoint_interval,
                         "events between state checkpoints (default: automatic, from 64 up as the graph grows)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));

    StatsOptions stats;
    auto* stats_cmd = app.add_subcommand("stats", "memory statistics after each event and for the whole plan");
    add_graph_input(stats_cmd, stats.graph);
    stats_cmd->add_flag("--summary", stats.summary_only, "only the whole-plan figures");
    stats_cmd->add_flag("--json", stats.json, "one JSON object (docs/json-reports.md)");

    WhyOptions why;
    auto* why_cmd = app.add_subcommand("why", "why each buffer is as large as it is: where its size was set, what was live, "
                                              "the holes, and the lower bound");
    add_graph_input(why_cmd, why.graph);
    why_cmd->add_flag("--json", why.json, "one JSON object with a `buffers` list");

    VersionsOptions versions;
    auto* versions_cmd = app.add_subcommand("versions", "the ggml allocator states gallocsim plans by, what changed in each, "
                                                        "and which state a ggml version carries");
    versions_cmd->add_option("version", versions.version, "a version as ggml_version() reports it: which state it ran");
    versions_cmd->add_option("--commit", versions.commit, "what ggml_commit() reports");
    versions_cmd->add_flag("--json", versions.json, "one JSON object (docs/json-reports.md)");

    CaptureOptions capture;
    auto* capture_cmd = app.add_subcommand("capture", "run a ggml program and record every graph its graph allocator plans "
                                                      "(usage: capture --out DIR -- PROGRAM [ARGS...])");
    capture_cmd->add_option("--out", capture.out, "folder for the sessions and graphs (created; must hold no capture)")->required();
    capture_cmd->add_option("command", capture.command, "the program and its arguments, after --")->required();

    if (const int code = parse(app, argc, argv, out, err); code >= 0) {
        return code;
    }

    const std::vector<std::pair<CLI::App*, std::function<int()>>> commands{
        {plan_cmd, [&] { return cli::plan(plan, out, err); }},
        {conform_cmd, [&] { return cli::conform(conform, out, err); }},
        {trace_cmd, [&] { return cli::trace(trace, out, err); }},
        {walk_cmd, [&] {
             walk.interactive = console.interactive;
             const auto lines = console.interactive ? terminal_line_reader(in, out) : stream_line_reader(in, out, false);
             return cli::walk(walk, *lines, out, err);
         }},
        {stats_cmd, [&] { return cli::stats(stats, out, err); }},
        {examples_cmd, [&] {
             return example_name.empty() ? cli::list_examples(out)
                                         : cli::export_example(example_name, example_flags, example_output, out, err);
         }},
        {compare_cmd, [&] { return cli::compare(compare, out, err); }},
        {diff_cmd, [&] { return cli::diff(diff, out, err); }},
        {render_cmd, [&] { return cli::render(render, out, err); }},
        {export_mm_cmd, [&] {
             export_mm.offsets = !no_offsets;
             return cli::export_minimalloc(export_mm, out, err);
         }},
        {import_mm_cmd, [&] { return cli::import_minimalloc(import_mm, out, err); }},
        {why_cmd, [&] { return cli::why(why, out, err); }},
        {capture_cmd, [&] { return cli::capture(capture, out, err); }},
        {versions_cmd, [&] { return cli::versions(versions, out, err); }},
    };
    try {
        for (const auto& [command, run] : commands) {
            if (command->parsed()) {
                return run();
            }
        }
    } catch (const std::exception& error) {
        // Commands report bad input themselves (cli/errors.hpp): this is a bug.
        err << "gallocsim: internal error: " << error.what() << "\n";
        return kInternalError;
    }
    return kDone;
}

} // namespace gallocsim::cli
