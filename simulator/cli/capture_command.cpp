// `gallocsim capture --out DIR -- PROGRAM [ARGS…]`: runs a program with
// libgallocsim_capture.so preloaded, then summarises the sessions it wrote.
#include "simulator/live/program_run.hpp"
#include "simulator/model/capture_session.hpp"

#include "simulator/cli/command_list.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <ostream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace gallocsim::cli {

namespace fs = std::filesystem;

namespace {

struct CaptureOptions {
    std::string out;                   // the capture folder
    std::vector<std::string> command;  // the program and its arguments
};

// What a capture folder holds, read with the sessions' reader (a session cut short or
// unreadable is listed in `problems`, not an error).
struct CaptureSummary {
    std::vector<std::string> sessions;          // file names, in order
    std::map<std::string, std::size_t> calls;   // by function
    std::size_t replanned = 0;                  // alloc_graph calls that planned again
    std::size_t graphs = 0;                     // distinct graph files
    std::size_t min_nodes = 0, max_nodes = 0;
    std::size_t largest_buffer = 0;
    std::string largest_buffer_where;           // "CPU, session-0.jsonl call 2"
    std::vector<std::string> problems;          // sessions cut short or unreadable, one line each
    std::vector<std::string> gaps;              // what the capture could not see (capture-log.jsonl)
    std::string ggml_library;                   // the ggml a process of the program loaded (empty: none)
    std::string hidden_ggml;                    // hidden_ggml_sentence of the capture log (empty: none)
};

void print_summary(const CaptureSummary& summary, const fs::path& dir, std::ostream& out) {
    out << "captured " << summary.sessions.size() << (summary.sessions.size() == 1 ? " allocator" : " allocators")
        << " into " << dir.string() << ":";
    for (const std::string& session : summary.sessions) {
        out << " " << session;
    }
    out << "\ncalls:";
    const char* separator = " ";
    for (const auto& [function, count] : summary.calls) {
        out << separator << count << " " << function;
        if (function == "ggml_gallocr_alloc_graph") {
            out << " (" << summary.replanned << " re-planned)";
        }
        separator = ", ";
    }
    if (summary.calls.empty()) {
        out << " none";
    }
    out << "\ngraphs: " << summary.graphs << " distinct";
    if (summary.graphs > 0) {
        out << ", " << (summary.min_nodes == summary.max_nodes ? "" : std::to_string(summary.min_nodes) + " to ")
            << summary.max_nodes << (summary.max_nodes == 1 ? " node" : " nodes");
    }
    out << "\nlargest buffer: " << summary.largest_buffer << " bytes";
    if (!summary.largest_buffer_where.empty()) {
        out << " (" << summary.largest_buffer_where << ")";
    }
    out << "\n";
    for (const std::string& problem : summary.problems) {
        out << "incomplete: " << problem << "\n";
    }
}

// Why a capture holds no session, from what the capture library logged at the program's end.
std::string nothing_captured(const std::string& program, const CaptureSummary& summary, bool failed) {
    const std::string lead = failed ? program + " failed before any graph allocator call was captured: "
                                    : program + " made no graph allocator call the capture saw: ";
    if (!summary.gaps.empty()) {
        return lead + "nothing captured (see below).\n";
    }
    if (summary.ggml_library.empty() && !summary.hidden_ggml.empty()) {
        return lead + summary.hidden_ggml + ".\n";
    }
    if (summary.ggml_library.empty()) {
        return lead + "it never loaded a ggml library that defines the graph allocator (ggml_gallocr_new_n).\n";
    }
    return lead + "it loaded ggml (" + summary.ggml_library + ") but never created a graph allocator through it: " +
           (failed ? "see its own messages above." : "it plans no graph, or it calls ggml inside one object (ggml "
                                                     "linked statically, or built with -Bsymbolic), which a preloaded "
                                                     "library cannot see (docs/your-own-program.md).") + "\n";
}

// Kept small and in one place: the sessions' full reader (for replay) lives elsewhere.
CaptureSummary summarize_capture(const fs::path& dir) {
    CaptureSummary summary;
    Capture capture;
    try {
        capture = load_capture(dir);
    } catch (const GraphFileError& error) {
        summary.problems.push_back(error.what());
        return summary;
    }
    summary.problems = capture.errors;
    summary.gaps = capture.gaps();
    for (const CaptureLogEntry& entry : capture.log) {
        if (entry.kind == CaptureLogEntry::Kind::exit && !entry.ggml_library.empty()) {
            summary.ggml_library = entry.ggml_library;
        }
    }
    summary.hidden_ggml = hidden_ggml_sentence(capture.log);
    std::set<std::string> graphs;
    for (const CaptureSession& session : capture.sessions) {
        summary.sessions.push_back(session.label());
        if (!session.truncated.empty()) {
            summary.problems.push_back(session.label() + ": " + session.truncated);
        }
        for (const CapturedCall& call : session.calls) {
            ++summary.calls[std::string(captured_function_name(call.function))];
            summary.replanned += call.replanned.value_or(false) ? 1 : 0;
            if (graphs.insert(call.graph).second) {
                summary.min_nodes = graphs.size() == 1 ? call.nodes : std::min(summary.min_nodes, call.nodes);
                summary.max_nodes = std::max(summary.max_nodes, call.nodes);
            }
            for (std::size_t id = 0; id < call.buffer_sizes.size(); ++id) {
                if (call.buffer_sizes[id] > summary.largest_buffer) {
                    summary.largest_buffer = call.buffer_sizes[id];
                    const int type = session.buffers.at(id);
                    summary.largest_buffer_where = session.buffer_types.at(static_cast<std::size_t>(type)).name + ", " +
                                                   session.label() + " call " + std::to_string(call.number);
                }
            }
        }
    }
    summary.graphs = graphs.size();
    return summary;
}

// Returns the program's exit code (128 + n when a signal n ended it), 1 when the program
// succeeded but the capture is partial (calls the capture could not see, or a ggml it cannot
// read: each said on `out`), or non-zero with a message on `err` when the program could not
// be run.
int capture(const CaptureOptions& options, std::ostream& out, std::ostream& err) {
    const live::FoundLibrary library = live::find_capture_library();
    if (!library.path) {
        err << "gallocsim capture: " << library.problem << "\n";
        return 2;
    }
    const fs::path dir = fs::absolute(options.out);
    if (const std::string problem = live::prepare_capture_folder(dir); !problem.empty()) {
        err << "gallocsim capture: " << problem << "\n";
        return 2;
    }
    std::optional<live::ProgramEnd> end;
    try {
        live::ProgramRun run(options.command, *library.path, dir, std::nullopt);
        end = run.poll(/*wait=*/true);
    } catch (const std::runtime_error& error) {
        err << "gallocsim capture: " << error.what() << "\n";
        return 127;
    }
    const int exit_code = end->exit_code;
    const CaptureSummary summary = summarize_capture(dir);
    const std::string program = options.command.front();
    const std::string ended = " " + end->words();
    if (summary.sessions.empty()) {
        out << nothing_captured(program, summary, exit_code != 0);
    } else {
        print_summary(summary, dir, out);
    }
    for (const std::string& gap : summary.gaps) {
        out << gap << "\n";
    }
    out << program << ended << "\n";
    if (exit_code == 0 && !summary.gaps.empty()) {
        out << "the capture is partial: it holds only what reached the capture (docs/your-own-program.md)\n";
        return 1;
    }
    return exit_code;
}

} // namespace

// The subcommand on the command line (cli/command_list.hpp).
Subcommand add_capture_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<CaptureOptions>();
    auto* command = app.add_subcommand("capture", "run a ggml program and record every graph its graph allocator plans "
                                                  "(usage: capture --out DIR -- PROGRAM [ARGS...])");
    command->add_option("--out", options->out, "folder for the sessions and graphs (created; must hold no capture)")->required();
    command->add_option("command", options->command, "the program and its arguments, after --")->required();
    return {command, [options, &io] { return capture(*options, io.out, io.err); }};
}

} // namespace gallocsim::cli
