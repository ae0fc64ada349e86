#include "simulator/cli/commands.hpp"
#include "simulator/model/visible_text.hpp"

#include "simulator/cli/errors.hpp"
#include "simulator/cli/graph_notes.hpp"

#include "simulator/cli/analysis_commands.hpp"
#include "simulator/cli/capture_commands.hpp"
#include "simulator/model/amount_text.hpp"
#include "simulator/model/capture_session.hpp"
#include "simulator/model/corpus.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/plan.hpp"

#include "simulator/cli/command_list.hpp"
#include "simulator/cli/json_output.hpp"

#include <CLI/CLI.hpp>

#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

namespace gallocsim::cli {
namespace fs = std::filesystem;

namespace {

// `is_leaf`: by tensor index (a flag per tensor, not a set of pointers: a set of 100,000 is a
// cache miss per row).
std::string_view tensor_kind(const std::vector<bool>& is_leaf, const Tensor& tensor) {
    if (tensor.is_view()) {
        return "view";
    }
    return is_leaf[tensor.index] ? "leaf" : "node";
}

// Columns wide enough for every name (in terminal columns, whatever the names hold; cut at
// `name_limit`) and every number, so the table stays aligned at any size.
void print_plan_table(const GraphFile& file, const PlanRun& run, std::size_t name_limit, std::ostream& out) {
    // Each row's tensor (the plan's tensors are the file's, in its order) and size.
    struct Row {
        const Tensor* tensor;
        std::size_t size;
    };
    std::vector<Row> rows;
    rows.reserve(run.plan.tensors.size());
    std::size_t width = 6, number_width = 12;
    for (const auto& [id, place] : run.plan.tensors) {
        const Tensor& tensor = file.context.tensors().at(static_cast<std::size_t>(id));
        const auto type = static_cast<std::size_t>(file.buffers[static_cast<std::size_t>(place.buffer_id)]);
        const Row& row = rows.emplace_back(Row{&tensor, run.types[type]->alloc_size(tensor)});
        width = std::max(width, std::min(display_width(tensor.name), name_limit));
        number_width = std::max({number_width, std::to_string(place.offset).size() + 2, std::to_string(row.size).size() + 2});
    }
    const auto numbers = static_cast<int>(number_width);
    std::vector<bool> is_leaf(file.context.size());
    for (const Tensor* leaf : file.graph.leafs) {
        is_leaf[leaf->index] = true;
    }
    out << padded("tensor", width) << "  kind  buffer  chunk  " << std::right << std::setw(numbers) << "offset"
        << std::setw(numbers) << "size" << "\n";
    for (std::size_t i = 0; const auto& [id, place] : run.plan.tensors) {
        const Row& row = rows[i++];
        out << padded(shortened(row.tensor->name, name_limit), width) << "  " << std::left << std::setw(4) << tensor_kind(is_leaf, *row.tensor) << "  " << std::right
            << std::setw(6) << place.buffer_id << "  " << std::setw(5) << place.chunk << "  " << std::setw(numbers)
            << place.offset << std::setw(numbers) << row.size << "\n";
    }
    out << "\n";
    for (int id = 0; id < file.buffer_count(); ++id) {
        const auto& spec = file.buffer_types[static_cast<std::size_t>(file.buffers[static_cast<std::size_t>(id)])];
        out << "buffer " << id << " (" << spec.name << ", alignment " << spec.alignment << "): "
            << run.plan.buffer_sizes[static_cast<std::size_t>(id)] << " bytes ("
            << binary_size(run.plan.buffer_sizes[static_cast<std::size_t>(id)]) << ")";
        const auto& chunks = run.plan.chunk_sizes[static_cast<std::size_t>(id)];
        if (chunks.size() > 1) {
            out << " in " << chunks.size() << " chunks:";
            for (std::size_t size : chunks) {
                out << " " << size;
            }
        } else if (chunks.empty() && run.allocator->canonical_buffer_id(id) != id) {
            out << " (shares buffer " << run.allocator->canonical_buffer_id(id) << ")";
        }
        out << "\n";
    }
}

// What conform checks: graph files, and capture folders (a folder with session-*.jsonl,
// found as given or inside a folder, whose graphs/ are its calls' and not checked alone).
struct ConformInputs {
    std::vector<fs::path> files;
    std::vector<fs::path> captures;
};

ConformInputs collect_inputs(const std::vector<std::string>& paths, std::ostream& err, bool& ok) {
    CorpusInputs found = find_corpus_inputs(paths);
    for (const std::string& problem : found.problems) {
        err << problem << "\n";
        ok = false;
    }
    return {std::move(found.files), std::move(found.captures)};
}

} // namespace

namespace {

std::string buffer_label(const GraphFile& file, int id) {
    const auto& spec = file.buffer_types[static_cast<std::size_t>(file.buffers[static_cast<std::size_t>(id)])];
    return "buffer " + std::to_string(id) + " (" + spec.name + ", alignment " + std::to_string(spec.alignment) + ")";
}

std::string graph_label(const GraphFile& file, const std::string& input) {
    return file.name.empty() ? input : file.name;
}

int print_measured(const GraphFile& file, const PlanOptions& options, std::ostream& out, std::ostream& err) {
    const Rules rules = chosen_rules(options.graph);
    const MeasuredPlan measured = measure_plan(file, rules.profile());
    if (!measured.sizes) {
        err << input_name(options.graph) << ": " << measured.error << "\n";
        return 1;
    }
    out << "reserve_n_size on " << graph_label(file, options.graph.input) << " (plans, allocates nothing):\n";
    for (int id = 0; id < file.buffer_count(); ++id) {
        const auto bytes = (*measured.sizes)[static_cast<std::size_t>(id)];
        out << buffer_label(file, id) << ": " << bytes << " bytes";
        const int shared = measured.canonical_ids[static_cast<std::size_t>(id)];
        if (shared != id) {
            out << " (shares buffer " << shared << "'s allocator, so this is its total again)";
        }
        out << "\n";
    }
    return 0;
}

void print_reserved_sizes(const GraphFile& file, const std::vector<std::size_t>& sizes, std::ostream& out) {
    for (int id = 0; id < file.buffer_count(); ++id) {
        out << (id ? ", " : "") << "buffer " << id << ": " << sizes[static_cast<std::size_t>(id)] << " bytes";
    }
}

int plan_after_reserve(const GraphFile& file, const PlanOptions& options, std::ostream& out, std::ostream& err) {
    GraphInput reserve_input = options.graph;
    reserve_input.input = options.reserve_with;
    reserve_input.model = {};
    const GraphFile reserved = load_graph_input(reserve_input);
    const Rules rules = chosen_rules(options.graph);
    const ReservedPlanRun result = run_plan_after_reserve(reserved, file, rules.profile());
    const PlanRun& run = result.run;
    if (!run.plan.reserve) {
        err << options.reserve_with << ": " << run.error << "\n";
        return 1;
    }
    out << "reserve_n on " << graph_label(reserved, options.reserve_with) << ": ";
    print_reserved_sizes(file, result.reserved_sizes, out);
    out << "\nalloc_graph on " << graph_label(file, options.graph.input) << ": ";
    if (!result.needed_realloc) {
        out << "needs_realloc says no: the graph has as many nodes and leafs as the reserved one, and every tensor "
               "fits the bytes reserved for it, so each takes its reserved place.\n";
    } else {
        out << "needs_realloc says yes: " << result.realloc_reason << ".\n";
        if (file.buffer_count() == 1) {
            const AllocatorProfile& profile = rules.profile();
            out << "With one buffer id, alloc_graph re-plans by itself (reserve); a buffer is allocated anew only "
                << (profile.reallocation == Reallocation::when_a_chunk_grows ? "where a chunk grows"
                                                                             : "where the plan's total grows")
                << ", so now ";
            print_reserved_sizes(file, run.plan.buffer_sizes, out);
            out << ".\n";
        } else {
            out << "With " << file.buffer_count() << " buffer ids, alloc_graph cannot re-plan by itself: it fails, and "
                << "the caller (ggml_backend_sched) calls reserve_n with the ids and tries again.\n";
        }
    }
    if (!run.error.empty()) {
        err << input_name(options.graph) << ": " << run.error << "\n";
        return 1;
    }
    out << "\n";
    print_plan_table(file, run, name_columns(options.full_names), out);
    return 0;
}

} // namespace

namespace {

// The plan in the shape of a graph file's `expected`, and the graph's warnings where it has any
// (the graph reader takes a pasted `expected` with them).
std::string plan_json(const PlanRecord& plan, const GraphFile& file, nlohmann::ordered_json warnings) {
    if (warnings.empty()) {
        return plan_record_to_json(plan, file.context);
    }
    auto document = nlohmann::ordered_json::parse(plan_record_to_json(plan, file.context, -1));
    document["warnings"] = std::move(warnings);
    return json_report(document);
}

} // namespace

int plan(const PlanOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&] {
        GraphFile file = load_graph_input(options.graph);
        auto warnings = note_early_reads(file, input_name(options.graph), err);
        if (options.measure) {
            return print_measured(file, options, out, err);
        }
        if (const std::string why = sizes_only_reason(file); !why.empty() && !options.json) {
            out << graph_label(file, options.graph.input) << ": " << why << ".\n";
            return print_measured(file, options, out, err);
        }
        if (!options.reserve_with.empty()) {
            return plan_after_reserve(file, options, out, err);
        }
        const Rules rules = chosen_rules(options.graph);
        const AllocatorProfile& profile = rules.profile();
        PlanRun run = run_plan(file, nullptr, profile);
        // One verdict: a plan that failed prints no table of places it did not make (JSON still
        // says `reserve` or `alloc_graph` false, with what was placed, for tools).
        if (options.json) {
            out << plan_json(run.plan, file, std::move(warnings)) << "\n";
        } else if (run.error.empty()) {
            out << (file.name.empty() ? options.graph.input : file.name) << ": " << planned_by(options.graph, file) << "\n";
            print_plan_table(file, run, name_columns(options.full_names), out);
        }
        if (!run.error.empty()) {
            err << input_name(options.graph) << ": " << run.error << "\n";
            return 1;
        }
        return 0;
    });
}

namespace {

const char* verdict_word(ConformVerdict::Result result) {
    switch (result) {
    case ConformVerdict::Result::pass: return "pass";
    case ConformVerdict::Result::fail: return "fail";
    case ConformVerdict::Result::skip: return "skip";
    case ConformVerdict::Result::note: return "note";
    }
    return "";
}

std::string upper(std::string word) {
    std::ranges::transform(word, word.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return word;
}

// The profile a file is checked under: the one asked for (`forced`), else the one its source names.
const AllocatorProfile& conform_profile(const GraphFile& file, const fs::path& path, const AllocatorProfile* forced) {
    if (forced != nullptr) {
        return *forced;
    }
    if (const AllocatorProfile* profile = profile_for_source(file.expected->source)) {
        return *profile;
    }
    std::string sources;
    for (const AllocatorProfile& profile : allocator_profiles()) {
        for (std::string_view source : profile.sources) {
            sources += (sources.empty() ? "\"" : ", \"") + std::string(source) + "\" (" + std::string(profile.name) + ")";
        }
    }
    throw GraphFileError(path.string() + ": expected.source \"" + file.expected->source +
                         "\" is no ggml version gallocsim knows (" + sources +
                         "); choose one with --ggml-version");
}

} // namespace

namespace {

// A corpus can hold hundreds of graphs that read out of order in the same way (ggml_cast's
// self-reading CPY in every random golden graph): each kind is told once in full, then counted,
// so the notes stay readable; --json lists every one.
void print_warnings_once_per_kind(const ConformTally& tally, std::ostream& err) {
    std::vector<std::string> told;
    std::map<std::string, std::pair<std::size_t, std::set<std::string>>> more;  // kind: (nodes, files)
    for (const auto& [subject, warning] : tally.warnings) {
        const std::string kind = warning["kind"].get<std::string>();
        if (std::ranges::find(told, kind) == told.end()) {
            told.push_back(kind);
            err << "note: " << subject << ": " << warning["text"].get<std::string>() << "\n";
        } else {
            ++more[kind].first;
            more[kind].second.insert(subject);
        }
    }
    for (const std::string& kind : told) {
        if (const auto it = more.find(kind); it != more.end()) {
            err << "note: " << counted(it->second.first, "more node") << " in " << counted(it->second.second.size(), "file")
                << " read out of order the same way (" << kind << "); --json lists each\n";
        }
    }
}

} // namespace

int conform(const ConformOptions& options, std::ostream& out, std::ostream& err) {
    // An unknown --ggml-version fails before any file is read.
    std::optional<Rules> asked;
    const auto resolve = [&] {
        if (!options.ggml_version.empty()) {
            asked = chosen_rules(options.ggml_version);
        }
        return kDone;
    };
    if (const int code = run_guarded(err, resolve); code != kDone) {
        return code;
    }
    const AllocatorProfile* forced = asked ? &asked->profile() : nullptr;
    bool paths_ok = true;
    const auto [files, captures] = collect_inputs(options.paths, err, paths_ok);
    ConformTally tally;
    for (const fs::path& path : files) {
        try {
            GraphFile file = load_graph_file(path);
            tally.add_warnings(path.string(), file);
            if (!file.expected) {
                tally.add({ConformVerdict::Result::skip, path.string(), {"no expected plan"}, true});
                continue;
            }
            const AllocatorProfile& profile = conform_profile(file, path, forced);
            PlanRun run = run_plan(file, nullptr, profile);
            auto differences = compare_plans(*file.expected, run.plan, file.context);
            if (differences.empty()) {
                tally.add({ConformVerdict::Result::pass, path.string(), {}, true});
                continue;
            }
            if (!run.error.empty()) {
                differences.insert(differences.begin(), run.error);
            }
            tally.add({ConformVerdict::Result::fail, path.string() + " (planned as " + std::string(profile.name) + ")",
                       std::move(differences), false});
        } catch (const GraphFileError& error) {
            tally.add({ConformVerdict::Result::fail, error.what(), {}, false});
        }
    }
    // A capture whose program's allocator version cannot be told is a usage error: exit 2.
    for (const fs::path& folder : captures) {
        if (const int code = run_guarded(err, [&] { return (conform_capture(folder, forced, tally), kDone); }); code != kDone) {
            return code;
        }
    }
    if (!paths_ok && tally.verdicts.empty()) {
        return kBadInput;  // nothing was checked: no "0 passed, 0 failed" beside the error
    }
    print_warnings_once_per_kind(tally, err);
    if (options.json) {
        nlohmann::json verdicts = nlohmann::json::array();
        for (const ConformVerdict& v : tally.verdicts) {
            verdicts.push_back({{"result", verdict_word(v.result)},
                                {"subject", v.subject},
                                {"details", v.details}});
        }
        nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
        for (const auto& [subject, warning] : tally.warnings) {
            nlohmann::ordered_json item{{"subject", subject}};
            item.update(warning);
            warnings.push_back(std::move(item));
        }
        out << json_report(nlohmann::ordered_json{{"passed", tally.passed}, {"failed", tally.failed}, {"skipped", tally.skipped},
                                                  {"verdicts", verdicts}, {"warnings", warnings}})
            << "\n";
    } else {
        for (const ConformVerdict& v : tally.verdicts) {
            if (v.quiet && !options.verbose) {
                continue;
            }
            const std::string word = upper(verdict_word(v.result)) + " ";
            // A skip or a note says why on its line; a failure lists what differs below it.
            if ((v.result == ConformVerdict::Result::skip || v.result == ConformVerdict::Result::note) && v.details.size() == 1) {
                out << word << v.subject << (v.quiet ? " (" + v.details[0] + ")" : ": " + v.details[0]) << "\n";
                continue;
            }
            out << word << v.subject << "\n";
            for (const std::string& line : v.details) {
                out << "  " << line << "\n";
            }
        }
        // Files skipped quietly (nothing to compare with) are counted below; say why they were.
        const auto hidden = std::ranges::count_if(tally.verdicts, [&](const ConformVerdict& v) {
            return v.quiet && v.result == ConformVerdict::Result::skip && !options.verbose;
        });
        if (hidden > 0) {
            out << hidden << (hidden == 1 ? " graph file has" : " graph files have")
                << " no `expected` plan to compare with, so conform skipped " << (hidden == 1 ? "it" : "them")
                << " (-v lists them; `gallocsim plan FILE --json` writes a plan in that shape)\n";
        }
        out << tally.passed << " passed, " << tally.failed << " failed";
        if (tally.skipped > 0) {
            out << ", " << tally.skipped << " skipped";
        }
        out << "\n";
    }
    if (!paths_ok) {
        return kBadInput;  // a path that is no input: said on standard error above
    }
    return tally.failed == 0 ? kDone : kFailed;
}

int list_examples(std::ostream& out) {
    for (const auto& example : gallocsim::list_examples()) {
        out << std::left << std::setw(14) << example.name << example.description << "\n";
        if (!example.options.empty()) {
            std::string flags;
            for (const std::string& parameter : example.options) {
                flags += " --" + parameter;
            }
            out << std::setw(14) << "" << "options:" << flags << "\n";
            std::string defaults;
            for (std::size_t i = 0; i < example.options.size() && i < example.defaults.size(); ++i) {
                defaults += (i == 0 ? " " : ", ") + example.options[i] + " " + example.defaults[i];
            }
            out << std::setw(14) << "" << "defaults:" << defaults << "\n";
        }
        std::string presets;
        for (const ModelPreset& preset : model_presets()) {
            if (preset.example == example.name) {
                presets += " " + std::string(preset.name);
            }
        }
        if (!presets.empty()) {
            out << std::setw(14) << "" << "--preset:" << presets << "\n";
        }
    }
    return 0;
}

// The subcommands on the command line (cli/command_list.hpp).
Subcommand add_plan_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<PlanOptions>();
    auto* command = app.add_subcommand("plan", "plan a graph file (or a built-in example) and print where every tensor goes");
    add_graph_input(command, options->graph);
    command->add_flag("--json", options->json, "write the plan in the graph format's `expected` shape");
    add_full_names_flag(command, options->full_names);
    auto* reserve_with = command->add_option(
        "--reserve-with", options->reserve_with,
        "reserve_n on this graph file or example (default parameters) first, then alloc_graph the input: "
        "shows whether needs_realloc re-plans");
    auto* measure = command->add_flag("--measure", options->measure, "plan with reserve_n_size only: the bytes per buffer id");
    reserve_with->excludes(measure);
    command->get_option("--json")->excludes(measure)->excludes(reserve_with);
    return {command, [options, &io] { return plan(*options, io.out, io.err); }};
}

Subcommand add_conform_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<ConformOptions>();
    auto* command = app.add_subcommand(
        "conform", "check that plans equal each file's `expected` plan (from upstream ggml), or replay captures call by call");
    command->add_option("paths", options->paths, "graph files, folders of them, or capture folders")->required();
    command->add_flag("-v,--verbose", options->verbose, "list passing files and calls too");
    command->add_flag("--json", options->json, "one JSON object: the counts and every verdict (docs/json-reports.md)");
    command->add_option("--ggml-version", options->ggml_version,
                        "plan every file by this ggml version (default: the one each file's expected.source names, "
                        "or for a capture the ggml version its program reported)");
    return {command, [options, &io] { return conform(*options, io.out, io.err); }};
}

Subcommand add_examples_command(CLI::App& app, const Console& io) {
    struct ExamplesOptions {
        std::string name, output;
        ModelFlags model;
    };
    auto options = std::make_shared<ExamplesOptions>();
    auto* command = app.add_subcommand("examples", "list the built-in examples, or export one as a graph file");
    command->add_option("name", options->name, "example to export");
    command->add_option("-o,--output", options->output, "file to write (default: standard output)");
    add_model_flags(command, options->model);
    return {command, [options, &io] {
                return options->name.empty() ? list_examples(io.out)
                                             : export_example(options->name, options->model, options->output, io.out, io.err);
            }};
}

} // namespace gallocsim::cli
