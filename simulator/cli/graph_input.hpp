#pragma once
// What every command that plans a graph reads from the command line: a graph file or a
// built-in example with its flags, buffer settings that override the file's, and the ggml
// version. Turning flags into the model's inputs happens here, so that flag names appear in
// command-line errors only (the model's own errors name the input, never a flag).

#include "simulator/model/buffer_settings.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/rules.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gallocsim {
struct AllocatorProfile;
class Policy;
}

namespace gallocsim::cli {

// Example parameters as the command line gives them (checked when the example is built): the
// counts and switches where the examples read them (add_model_flags declares a flag for each
// parameter of example_parameters()), a type's or a buffer setup's name as it was typed, read by
// example_options (so an unknown name is reported after what comes before it, such as example
// flags given to a file).
struct ModelFlags : ExampleOptions {
    std::optional<std::string> preset;  // a real model's shapes (model_presets), under the flags given
    std::map<std::string, std::string, std::less<>> names;  // by parameter: --weights q4_0 is {"weights", "q4_0"}
};

// Buffer type settings that override the file's (all buffer types).
struct BufferFlags {
    std::optional<std::size_t> alignment;
    std::optional<std::size_t> max_size;
    std::optional<std::string> alloc_size;  // nbytes or cuda
};

// What every command that plans a graph reads: a graph file, or a built-in example with
// its parameters, and buffer settings that override the file's.
struct GraphInput {
    std::string input;
    ModelFlags model{};
    BufferFlags buffers{};
    std::string ggml_version{};  // --ggml-version: a profile name; empty: the newest
    std::string call{};          // --call SESSION:CALL, for a capture folder; empty: the call that set the largest buffer
};

// The rules --ggml-version (or --policy) names: a state, a ggml version, or a policy file (the
// newest state when empty; model/rules.hpp). Throws UsageError naming `option` (how the
// command line asked: --against, policy export) and the known versions for anything else,
// GraphFileError for a policy file that cannot be read.
Rules chosen_rules(const std::string& ggml_version, std::string_view option = "--ggml-version");
// The same for a command's input: without --ggml-version, a capture's call is planned by the
// state its program's ggml carried (as conform replays it), anything else by the newest.
Rules chosen_rules(const GraphInput& input);
// What every text report's first line says planned it (analysis/planned_by), with the version
// map's note when a capture's program could have run more than one state.
std::string planned_by(const GraphInput& input, const GraphFile& file);

// A path that names an existing file is loaded, "-" reads the file from standard input, a
// capture folder gives the graph of one of its calls (model/capture_call.hpp: --call's, or the
// one that set the largest buffer; the graph's name says which); anything else must be an
// example name.
// Example flags are refused for files; buffer flags apply to both. Throws UsageError for
// flags, GraphFileError for the input.
// The input as messages name it: "standard input" for "-" (as the reader's own errors say), else
// the path or example name as given.
std::string input_name(const GraphInput& input);
GraphFile load_graph_input(const GraphInput& input);
// The same, for a command that loads "-" more than once (diff): standard input is read into
// `standard_input` the first time and parsed from there every time.
GraphFile load_graph_input(const GraphInput& input, std::optional<std::string>& standard_input);

// The model's inputs from the flags; throw UsageError for a flag that is wrong.
ExampleOptions example_options(const ModelFlags& flags);
// The example `name` built from the flags, a --preset's shapes under the flags given (UsageError
// for an unknown preset or one of another example).
GraphFile example_from_flags(const std::string& name, const ModelFlags& flags);
BufferOverrides buffer_overrides(const BufferFlags& flags);

} // namespace gallocsim::cli
