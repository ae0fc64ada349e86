#pragma once
// How a subcommand joins the `gallocsim` command line: each command's file declares its
// options on its own CLI11 subcommand, next to its code, and hands back what runs it once
// the command line is parsed. cli/command_list.hpp lists every command's adder;
// command_line.cpp adds them in that order.

#include "simulator/cli/command_line.hpp"
#include "simulator/cli/graph_input.hpp"

#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace gallocsim::cli {

struct Subcommand {
    CLI::App* app = nullptr;
    std::function<int()> run;  // called when `app` was the subcommand parsed
};

// Adds one subcommand to `app`; `io` holds the streams the command writes to.
using SubcommandAdder = Subcommand (*)(CLI::App& app, const Console& io);

// Options several subcommands share.
void add_graph_input(CLI::App* command, GraphInput& input);  // the input, --ggml-version, example and buffer options
void add_model_flags(CLI::App* command, ModelFlags& flags);  // a built-in example's parameters
void add_buffer_flags(CLI::App* command, BufferFlags& flags, const std::string& group);
// --full-names: a text table's names whole instead of cut at kNameColumns with "…".
void add_full_names_flag(CLI::App* command, bool& full_names);

} // namespace gallocsim::cli
