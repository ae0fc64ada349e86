#pragma once
// Every `gallocsim` command, in the order --help lists them: the one list of commands. Each
// is defined in its own file, next to its code, which declares its options and hands back
// what runs it (cli/subcommand.hpp). A new command is its file, its line here and its line in
// CMakeLists.txt.

#include "simulator/cli/subcommand.hpp"

#include <array>

namespace gallocsim::cli {

Subcommand add_plan_command(CLI::App& app, const Console& io);               // commands.cpp
Subcommand add_conform_command(CLI::App& app, const Console& io);            // commands.cpp
Subcommand add_examples_command(CLI::App& app, const Console& io);           // commands.cpp
Subcommand add_compare_command(CLI::App& app, const Console& io);            // analysis_commands.cpp
Subcommand add_diff_command(CLI::App& app, const Console& io);               // analysis_commands.cpp
Subcommand add_render_command(CLI::App& app, const Console& io);             // analysis_commands.cpp
Subcommand add_export_minimalloc_command(CLI::App& app, const Console& io);  // analysis_commands.cpp
Subcommand add_import_minimalloc_command(CLI::App& app, const Console& io);  // analysis_commands.cpp
Subcommand add_trace_command(CLI::App& app, const Console& io);              // step_commands.cpp
Subcommand add_walk_command(CLI::App& app, const Console& io);               // step_commands.cpp
Subcommand add_stats_command(CLI::App& app, const Console& io);              // step_commands.cpp
Subcommand add_why_command(CLI::App& app, const Console& io);                // why_command.cpp
Subcommand add_versions_command(CLI::App& app, const Console& io);           // versions_command.cpp
Subcommand add_policy_command(CLI::App& app, const Console& io);             // policy_command.cpp
Subcommand add_capture_command(CLI::App& app, const Console& io);            // capture_command.cpp
Subcommand add_watch_command(CLI::App& app, const Console& io);              // watch_command.cpp
Subcommand add_predict_command(CLI::App& app, const Console& io);            // predict_command.cpp

inline constexpr std::array<SubcommandAdder, 17> kCommands{
    add_plan_command,  add_conform_command,   add_examples_command, add_compare_command, add_diff_command,
    add_render_command, add_export_minimalloc_command, add_import_minimalloc_command, add_trace_command,
    add_walk_command,  add_stats_command,     add_why_command,      add_versions_command, add_policy_command,
    add_capture_command, add_watch_command, add_predict_command,
};

} // namespace gallocsim::cli
