// The step engine's commands: trace (every event explained), walk (an interactive
// stepper over a cursor, one event at a time) and stats (memory figures after each event
// and for the whole plan).
#include "simulator/cli/step_commands.hpp"
#include "reference/dynamic_allocator.hpp"

#include "simulator/cli/errors.hpp"
#include "simulator/cli/graph_input.hpp"
#include "simulator/cli/graph_notes.hpp"
#include "simulator/cli/line_reader.hpp"

#include "simulator/trace/cursor.hpp"
#include "simulator/trace/peak.hpp"
#include "simulator/trace/explain.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/cli/progress.hpp"
#include "simulator/trace/trace.hpp"
#include "simulator/trace/trace_json.hpp"

#include "simulator/analysis/plan_stats.hpp"
#include "simulator/model/amount_text.hpp"
#include "simulator/cli/command_list.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <iomanip>
#include <istream>
#include <memory>
#include <ostream>
#include <sstream>

namespace gallocsim::cli {
namespace {

constexpr std::size_t kUnbounded = kMaxChunkSize;

// A graph's trace and what its order means (notes on `err` now, the JSON list for --json).
struct LoadedTrace {
    Rules rules;  // first, so that it outlives the trace: a policy's profile, which the trace points to, lives in it
    Trace trace;
    nlohmann::ordered_json warnings;
    std::string planned_by;  // the first line's words on what planned it (analysis/planned_by)
};

LoadedTrace load_trace(const GraphInput& input, std::ostream& err) {
    GraphFile file = load_graph_input(input);
    auto warnings = note_early_reads(file, input.input, err);
    Rules rules = chosen_rules(input);
    Trace trace = record_trace(file, rules.profile());
    return {std::move(rules), std::move(trace), std::move(warnings), planned_by(input, file)};
}

// "node step 3 of 9, mul" in the node loop, else the stage.
std::string context(const Trace& trace, const TraceEvent& event) {
    if (event.node == kNoTensor) {
        return std::string(stage_name(event.stage));
    }
    const TraceTensor& node = trace.tensor(event.node);
    return "node step " + std::to_string(node.position + 1) + " of " + std::to_string(trace.node_count) + ", " + node.name;
}


std::optional<std::size_t> parse_count(std::string_view text) {
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || text.empty()) {
        return std::nullopt;
    }
    return value;
}

std::string block_range(const FreeBlock& block) {
    if (block.end() >= kUnbounded) {
        return "[" + std::to_string(block.offset) + ", unbounded)";
    }
    return "[" + std::to_string(block.offset) + ", " + std::to_string(block.end()) + ")";
}

// --- walk -----------------------------------------------------------------------------

constexpr const char* kWalkHelp =
    "Commands:\n"
    "  n, next          one event forward (an empty line does the same)\n"
    "  p, prev          one event back\n"
    "  j K, jump K      go to event K (0: the start)\n"
    "  f, first         go to the start\n"
    "  l, last          go to the last event\n"
    "  b TENSOR         run to the next event that touches TENSOR (a name may hold spaces)\n"
    "  bb TENSOR        run back to the previous event that touches TENSOR\n"
    "  k KIND           run to the next event of KIND (e.g. tensor-freed, in-place-reused)\n"
    "  m BYTES          run to where the live bytes first rise above BYTES\n"
    "  s, state         show the free lists and live tensors\n"
    "  h, help          this list\n"
    "  q, quit          leave\n";

// The first word, and the rest of the line without the blanks around it and without the
// quotes around it, if any.
std::pair<std::string, std::string> split_command(const std::string& line) {
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    std::size_t start = 0;
    while (start < line.size() && blank(line[start])) {
        ++start;
    }
    std::size_t end = start;
    while (end < line.size() && !blank(line[end])) {
        ++end;
    }
    std::string rest = line.substr(end);
    rest.erase(0, rest.find_first_not_of(" \t"));
    rest.erase(rest.find_last_not_of(" \t") + 1);
    if (rest.size() >= 2 && (rest.front() == '"' || rest.front() == '\'') && rest.back() == rest.front()) {
        rest = rest.substr(1, rest.size() - 2);
    }
    return {line.substr(start, end - start), rest};
}

class Walk {
public:
    enum class Outcome { go_on, quit, refused };

    Walk(Cursor cursor, std::ostream& out) : cursor_(std::move(cursor)), out_(out) {}

    void show_position() const {
        const Trace& trace = cursor_.trace();
        const std::size_t position = cursor_.position();
        const std::size_t steps = cursor_.size();
        if (position == 0) {
            out_ << "At the start, before event 1 of " << steps << ".\n";
        } else {
            out_ << "Event " << position << " of " << steps << " (" << context(trace, *cursor_.last_event())
                 << "): " << explain(trace, cursor_.state_at(position - 1), position - 1) << "\n";
        }
        if (position < steps) {
            out_ << "Next, event " << position + 1 << ": " << explain(trace, cursor_.state(), position) << "\n";
        } else {
            out_ << "That was the last event.\n";
        }
    }

    void show_state() const {
        const Trace& trace = cursor_.trace();
        const SimState& state = cursor_.state();
        const MemoryStats stats = memory_stats(state);
        out_ << (state.position == 0 ? std::string("At the start") : "After event " + std::to_string(state.position))
             << ": " << memory_text(stats) << ".\n";
        for (const int id : trace.allocator_buffer_ids()) {
            const TraceBuffer& buffer = trace.buffer(id);
            const AllocatorState& allocator = state.allocator_of(trace, id);
            if (allocator.chunks.empty()) {
                out_ << "Buffer " << id << " (" << buffer.type_name << "): no chunk yet.\n";
            }
            for (std::size_t c = 0; c < allocator.chunks.size(); ++c) {
                const Chunk& chunk = allocator.chunks[c];
                out_ << "Buffer " << id << " (" << buffer.type_name << "), chunk " << c
                     << ": high-water mark " << chunk.high_water << ", free blocks:";
                for (const FreeBlock& block : chunk.free_blocks) {
                    out_ << " " << block_range(block);
                }
                out_ << (chunk.free_blocks.empty() ? " none\n" : "\n");
            }
        }
        const auto live = live_tensors(state);
        out_ << "Live tensors (" << live.size() << "):\n";
        for (TensorId id : live) {
            const TensorState& tensor = state.tensor(id);
            out_ << "  " << trace.tensor(id).name << ": ";
            if (trace.allocator_count > 1) {
                out_ << "buffer " << trace.buffer(tensor.record.buffer_id).canonical_id << ", ";
            }
            out_ << "chunk " << tensor.record.address.chunk << ", offset " << tensor.record.address.offset << ", "
                 << byte_count(trace.tensor(id).bytes) << ", " << counted(tensor.record.children, "consumer") << " and "
                 << counted(tensor.record.views, "view") << " left";
            if (tensor.in_place_of != kNoTensor) {
                out_ << ", in place of " << trace.tensor(tensor.in_place_of).name;
            }
            out_ << "\n";
        }
    }

    // Runs one command line: `command [argument]`. A tensor name is the rest of the line, so
    // names with spaces need no quotes ("b Kcur-0 (rope)"); quotes around it are taken off.
    Outcome run(const std::string& line) {
        const auto [command, argument] = split_command(line);
        const bool takes_a_name = command == "b" || command == "bb";
        if (!takes_a_name && argument.find_first_of(" \t") != std::string::npos) {
            out_ << "Too many words: " << line << " (h for help; only b and bb take a name with spaces)\n";
            return Outcome::refused;
        }
        if (command.empty() || command == "n" || command == "next") {
            move(cursor_.step_forward(), "Already at the last event.");
        } else if (command == "p" || command == "prev") {
            move(cursor_.step_back(), "Already at the start.");
        } else if (command == "f" || command == "first") {
            cursor_.first();
            show_position();
        } else if (command == "l" || command == "last") {
            cursor_.last();
            show_position();
        } else if (command == "j" || command == "jump") {
            const auto step = parse_count(argument);
            if (!step || *step > cursor_.size()) {
                out_ << "j needs an event number from 0 to " << cursor_.size() << ".\n";
                return Outcome::refused;
            }
            cursor_.jump(*step);
            show_position();
        } else if (command == "b" || command == "bb") {
            if (argument.empty()) {
                out_ << command << " needs a tensor: " << command << " TENSOR runs " << (command == "b" ? "to the next" : "back to the previous")
                     << " event that touches TENSOR.\n";
                return Outcome::refused;
            }
            const auto tensor = cursor_.trace().find(argument);
            if (!tensor) {
                out_ << "No tensor named '" << argument << "'.\n";
                return Outcome::refused;
            }
            const bool forward = command == "b";
            const bool found = forward ? cursor_.run_forward(OnTensor{*tensor}) : cursor_.run_back(OnTensor{*tensor});
            move(found, std::string(forward ? "No later" : "No earlier") + " event touches " + argument + ".");
        } else if (command == "k") {
            const auto kind = parse_kind(argument);
            if (!kind) {
                out_ << "Unknown event kind '" << argument << "'; kinds are:";
                for (std::size_t k = 0; k < kEventKindCount; ++k) {
                    out_ << " " << kind_name(static_cast<EventKind>(k));
                }
                out_ << ".\n";
                return Outcome::refused;
            }
            move(cursor_.run_forward(OnKind{*kind}), "No later event is " + argument + ".");
        } else if (command == "m") {
            const auto bytes = parse_count(argument);
            if (!bytes) {
                out_ << "m needs a number of bytes.\n";
                return Outcome::refused;
            }
            move(cursor_.run_forward(LiveBytesAbove{*bytes}),
                 "The live bytes do not rise above " + argument + " after this event.");
        } else if (command == "s" || command == "state") {
            show_state();
        } else if (command == "h" || command == "help" || command == "?") {
            out_ << kWalkHelp;
        } else if (command == "q" || command == "quit") {
            return Outcome::quit;
        } else {
            out_ << "Unknown command '" << command << "' (h for help).\n";
            return Outcome::refused;
        }
        return Outcome::go_on;
    }

private:
    void move(bool moved, const std::string& otherwise) {
        if (moved) {
            show_position();
        } else {
            out_ << otherwise << "\n";
        }
    }

    Cursor cursor_;
    std::ostream& out_;
};

// --- stats ----------------------------------------------------------------------------

bool check_range(const TraceOptions& options, std::size_t events, std::ostream& err) {
    const std::size_t to = options.to.value_or(events);
    if (events == 0 && !options.to && options.from == 1) {
        return true;
    }
    if (options.from < 1 || options.from > events || to < options.from || to > events) {
        err << input_name(options.graph) << ": --from " << options.from << " --to " << to << " is not a range of events from 1 to "
            << events << "\n";
        return false;
    }
    return true;
}

nlohmann::json memory_json(const MemoryStats& m) {
    return {{"live", m.live_bytes},
            {"high_water", m.high_water},
            {"free", m.free_bytes},
            {"largest_free", m.largest_free},
            {"hole_share", m.hole_share()},
            {"fragmentation", m.fragmentation}};
}

nlohmann::json event_json(const Trace& trace, std::size_t event) {
    if (event == 0) {
        return nullptr;
    }
    return {{"event", event}, {"node_step", node_step(trace, trace.events[event - 1])}};
}

nlohmann::json stats_json(const Trace& trace, const PlanStats& stats, bool with_rows) {
    using nlohmann::json;
    json per_buffer = json::array();
    for (const BufferHighWater& buffer : stats.high_water_per_buffer) {
        per_buffer.push_back({{"buffer", buffer.buffer}, {"high_water", buffer.bytes}});
    }
    json peak = event_json(trace, stats.peak_live_event);
    if (!peak.is_null()) {
        peak["bytes"] = stats.peak_live;
    }
    json worst = event_json(trace, stats.worst_fragmentation_event);
    if (!worst.is_null()) {
        worst["fragmentation"] = stats.worst_fragmentation;
    }
    json result{{"graph", trace.graph_name},
                {"events", trace.size()},
                {"node_steps", trace.node_count},
                {"peak_live", peak},
                {"high_water", stats.at_end.high_water},
                {"high_water_per_buffer", per_buffer},
                {"at_end", memory_json(stats.at_end)},
                {"holes_at_size", {{"bytes", stats.holes_at_size}, {"share", stats.holes_share()}}},
                {"worst_fragmentation", worst},
                {"allocations",
                 {{"total", stats.allocations()},
                  {"best_fit", stats.choices[0]},
                  {"from_tail", stats.choices[1]},
                  {"new_chunk", stats.choices[2]}}},
                {"in_place_reuses", stats.count(EventKind::in_place_reused)},
                {"in_place_rejected", stats.count(EventKind::in_place_rejected)},
                {"frees", stats.count(EventKind::tensor_freed)},
                {"extra_space_frees", stats.count(EventKind::extra_space_freed)},
                {"outputs_kept", stats.count(EventKind::output_kept)},
                {"error", trace.error.empty() ? json() : json(trace.error)}};
    if (with_rows) {
        json list = json::array();
        for (const StatsRow& row : stats.rows) {
            json item = memory_json(row.memory);
            item["event"] = row.event;
            item["kind"] = kind_name(row.kind);
            item["node_step"] = row.node_step;
            list.push_back(std::move(item));
        }
        result["rows"] = std::move(list);
    }
    return result;
}

} // namespace

int trace(const TraceOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&] {
        const LoadedTrace loaded = load_trace(options.graph, err);
        const Trace& recorded = loaded.trace;
        if (!check_range(options, recorded.size(), err)) {
            return 2;
        }
        const std::size_t first = options.from - 1;
        const std::size_t last = std::min(options.to.value_or(recorded.size()), recorded.size());
        if (options.json) {
            out << "{\"trace\": " << trace_header_json(recorded) << ",\n\"events\": [";
        } else {
            out << recorded.graph_name << ": " << counted(recorded.size(), "event") << ", "
                << counted(recorded.node_count, "node step") << "; " << loaded.planned_by << "\n";
        }
        Progress progress(err, "explaining " + options.graph.input, last);
        SimState state = initial_state(recorded);
        for (std::size_t i = 0; i < last; ++i) {
            if (i >= first) {
                const std::string text = explain(recorded, state, i);
                if (options.json) {
                    out << (i > first ? ",\n" : "\n") << event_to_json(recorded, i, text);
                } else {
                    out << std::setw(6) << i + 1 << "  " << std::left << std::setw(19)
                        << kind_name(kind_of(recorded.events[i])) << std::right << text << "\n";
                }
            }
            apply_next(state, recorded);
            progress.update(i + 1);
        }
        if (options.json) {
            out << "\n],\n\"warnings\": " << loaded.warnings.dump(-1, ' ', /*ensure_ascii=*/true) << "}\n";
        }
        if (!recorded.error.empty()) {
            err << input_name(options.graph) << ": " << recorded.error << "\n";
            return 1;
        }
        return 0;
    });
}

int walk(const WalkOptions& options, LineReader& lines, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&] {
        LoadedTrace loaded = load_trace(options.graph, err);
        Trace recorded = std::move(loaded.trace);
        if (!recorded.error.empty()) {
            err << input_name(options.graph) << ": " << recorded.error << " (the walk shows the events up to the failure)\n";
        }
        out << "Walking " << recorded.graph_name << ": " << counted(recorded.size(), "event") << ", "
            << counted(recorded.node_count, "node step") << "; " << loaded.planned_by << ". Type h for help.\n";
        Walk session(Cursor(std::move(recorded), options.checkpoint_interval), out);
        session.show_position();
        // A command that cannot be done is answered and the walk goes on; a script that had
        // one exits with kBadInput, so that a caller can tell.
        bool refused = false;
        auto run = [&](const std::string& line) {
            const Walk::Outcome outcome = session.run(line);
            refused |= outcome == Walk::Outcome::refused;
            return outcome != Walk::Outcome::quit;
        };
        if (!options.commands.empty()) {
            for (const std::string& command : options.commands) {
                out << "> " << command << "\n";
                if (!run(command)) {
                    break;
                }
            }
        } else {
            while (const std::optional<std::string> line = lines.read("> ")) {
                if (!run(*line)) {
                    break;
                }
            }
        }
        return refused && !options.interactive ? kBadInput : kDone;
    });
}

int stats(const StatsOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&] {
        const LoadedTrace loaded = load_trace(options.graph, err);
        const Trace& recorded = loaded.trace;
        Progress progress(err, "replaying " + options.graph.input, recorded.size());
        const PlanStats stats = plan_stats(recorded, !options.summary_only, [&](std::size_t done) { progress.update(done); });
        if (options.json) {
            nlohmann::json report = stats_json(recorded, stats, !options.summary_only);
            report["warnings"] = loaded.warnings;
            out << report.dump(2, ' ', /*ensure_ascii=*/true) << "\n";
        } else {
            out << recorded.graph_name << ": " << counted(recorded.size(), "event") << ", "
                << counted(recorded.node_count, "node step") << "; " << loaded.planned_by << "\n";
            if (!options.summary_only) {
                out << " event  kind                node step" << std::setw(14) << "live" << std::setw(14) << "high-water"
                    << std::setw(14) << "free" << std::setw(8) << "holes" << std::setw(14) << "largest free" << std::setw(7)
                    << "frag" << "\n";
                for (const StatsRow& row : stats.rows) {
                    out << std::setw(6) << row.event << "  " << std::left << std::setw(19) << kind_name(row.kind)
                        << std::right << std::setw(10) << row.node_step << std::setw(14) << row.memory.live_bytes
                        << std::setw(14) << row.memory.high_water << std::setw(14) << row.memory.free_bytes
                        << std::setw(8) << percent1(row.memory.hole_share()) << std::setw(14) << row.memory.largest_free << std::setw(7) << fixed2(row.memory.fragmentation)
                        << "\n";
                }
            }
            const PlanStatsWords words = plan_stats_words(recorded, stats);
            out << words.heading << "\n";
            for (const std::string& line : words.lines) {
                out << "  " << line << "\n";
            }
        }
        if (!recorded.error.empty()) {
            err << input_name(options.graph) << ": " << recorded.error << "\n";
            return 1;
        }
        return 0;
    });
}

// The subcommands on the command line (cli/command_list.hpp).
Subcommand add_trace_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<TraceOptions>();
    auto* command = app.add_subcommand("trace", "record a plan step by step and explain every event");
    add_graph_input(command, options->graph);
    command->add_flag("--json", options->json,
                      "one JSON document: {\"trace\": header, \"events\": [one object per event]} (docs/json-reports.md)");
    command->add_option("--from", options->from, "first event to show (from 1)");
    command->add_option("--to", options->to, "last event to show");
    return {command, [options, &io] { return trace(*options, io.out, io.err); }};
}

Subcommand add_walk_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<WalkOptions>();
    auto* command = app.add_subcommand("walk", "step through a plan interactively (commands on standard input; h for help)");
    add_graph_input(command, options->graph);
    command->add_option("-e,--exec", options->commands,
                        "run this walk command instead of reading standard input "
                        "(repeat for more; each is shown after a \"> \" prompt)");
    command->add_option("--checkpoint-every", options->checkpoint_interval,
                        "events between state checkpoints (default: automatic, from 64 up as the graph grows)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
    return {command, [options, &io] {
                options->interactive = io.interactive;
                const auto lines = io.interactive ? terminal_line_reader(io.in, io.out) : stream_line_reader(io.in, io.out, false);
                return walk(*options, *lines, io.out, io.err);
            }};
}

Subcommand add_stats_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<StatsOptions>();
    auto* command = app.add_subcommand(
        "stats", "memory statistics after each event and for the whole plan. live: bytes tensors hold; high-water: the "
                 "bytes the plan needs so far; free: bytes below the high-water mark no tensor holds (holes); holes: free "
                 "as a share of the high-water mark, the bytes a plan wastes; frag (fragmentation): 1 - largest hole / "
                 "free, how scattered the holes are (one big hole reads 0.00 however large it is)");
    add_graph_input(command, options->graph);
    command->add_flag("--summary", options->summary_only, "only the whole-plan figures");
    command->add_flag("--json", options->json, "one JSON object (docs/json-reports.md)");
    return {command, [options, &io] { return stats(*options, io.out, io.err); }};
}

} // namespace gallocsim::cli
