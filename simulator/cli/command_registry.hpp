#pragma once
// How a command joins the `gallocsim` command line without any other file naming it: its
// file defines one CommandRegistrar, as GoogleTest's TEST registers a test, and
// run_command_line adds every registered command. So a new command is its own file and
// nothing else (CMake finds the file, cli/CMakeLists.txt): no header, no list to extend.
//
//   namespace {
//   Subcommand add_why_command(CLI::App& app, const Console& io) { ... }  // cli/subcommand.hpp
//   const CommandRegistrar kWhy({120, add_why_command});  // --help: after stats (110), before versions (130)
//   }
//
// The order keys are the commands' own, 10 apart so that a new one can go between two
// without touching another file; cli_tests holds the whole list (--help's order) and checks
// that no two commands share a key.
//
// The registrar runs during static initialization, so the file's object must be linked in
// although nothing calls into it: gallocsim_cli is an OBJECT library for that reason.

#include "simulator/cli/subcommand.hpp"

#include <vector>

namespace gallocsim::cli {

struct CommandRegistration {
    int order = 0;  // where --help lists the command: smallest first; no two commands share one
    SubcommandAdder add = nullptr;
};

// A command file's one static object that puts the command on the command line.
class CommandRegistrar {
public:
    explicit CommandRegistrar(CommandRegistration registration);
};

// Every registered command, sorted by order (the order --help lists them in).
std::vector<CommandRegistration> registered_commands();

} // namespace gallocsim::cli
