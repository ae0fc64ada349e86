// The `gallocsim` command line: the subcommands (cli/command_list.hpp's, each declaring its options in
// its own file), parsing (CLI11) and the exit code. main() only hands it
// the process's streams.
#include "simulator/cli/command_line.hpp"

#include "simulator/cli/command_list.hpp"
#include "simulator/cli/errors.hpp"
#include "simulator/cli/visible_output.hpp"

#include "reference/profile.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <new>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gallocsim::cli {
namespace {

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

// For CLI11's "NAME: At Most 1 required but received N": the option by all its names, given N
// times, and to give it once; empty for any other message.
std::string once_only(const CLI::App& app, const std::string& said) {
    constexpr std::string_view marker = ": At Most 1 required but received ";
    const auto at = said.find(marker);
    if (at == std::string::npos) {
        return {};
    }
    const std::string name = said.substr(0, at);
    std::string names = name;
    for (const CLI::App* command : app.get_subcommands({})) {
        if (const CLI::Option* option = command->get_option_no_throw(name); option != nullptr && command->parsed()) {
            names.clear();
            for (const std::string& long_name : option->get_lnames()) {
                names += (names.empty() ? "--" : " or --") + long_name;
            }
        }
    }
    return names + ": given " + said.substr(at + marker.size()) + " times; give it once";
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
    } catch (const CLI::ArgumentMismatch& mismatch) {
        // CLI11 says "--ggml-version: At Most 1 required but received 2", which names neither the
        // option as typed (it has two names) nor what to do.
        if (const std::string said = once_only(app, mismatch.what()); !said.empty()) {
            err << said << "\nRun with --help for more information.\n";
            return kBadInput;
        }
        app.exit(mismatch, out, err);
        return kBadInput;
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

// Every number option is refused where CLI11 would take it wrongly, the same way for all: an
// unsigned one given a negative number (CLI11 wraps "-3" to 2^64 - 3) and a floating-point
// one given nan or infinity (no range check catches nan).
const CLI::Validator kNotNegative(
    [](const std::string& text) {
        const bool negative = text.starts_with('-') && text.find_first_not_of("0", 1) != std::string::npos;  // "-0" is 0
        return negative ? "must not be negative, got " + text : std::string();
    },
    "");
const CLI::Validator kFinite(
    [](const std::string& text) {
        // Text that is no number at all is left to CLI11's own conversion, which names it.
        return std::isfinite(std::strtod(text.c_str(), nullptr)) ? std::string() : "must be a finite number, got " + text;
    },
    "");

void check_numbers(CLI::App& app) {
    for (CLI::Option* option : app.get_options()) {
        const std::string type = option->get_type_name();
        if (type.starts_with("UINT")) {
            option->check(kNotNegative);
        } else if (type.starts_with("FLOAT")) {
            option->check(kFinite);
        }
    }
    for (CLI::App* command : app.get_subcommands({})) {
        check_numbers(*command);
    }
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

    // The subcommands, in the order --help lists them; each declares its options in its own file.
    const Console io{in, out, err, console.interactive, console.err_is_terminal};
    std::vector<Subcommand> commands;
    for (SubcommandAdder add : kCommands) {
        commands.push_back(add(app, io));
    }
    check_numbers(app);
    if (const int code = parse(app, argc, argv, out, err); code >= 0) {
        return code;
    }
    try {
        for (const Subcommand& command : commands) {
            if (command.app->parsed()) {
                return command.run();
            }
        }
    } catch (const std::bad_alloc&) {
        return report_out_of_memory(err);
    } catch (const std::exception& error) {
        // Commands report bad input themselves (cli/errors.hpp): this is a bug.
        err << "gallocsim: internal error: " << error.what() << "\n";
        return kInternalError;
    }
    return kDone;
}

} // namespace gallocsim::cli
