#include "simulator/cli/subcommand.hpp"

#include "reference/profile.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/model/visible_text.hpp"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <system_error>
#include <variant>

namespace gallocsim::cli {

namespace {

// The flag of one example parameter: a count or a switch goes where the example reads it, a
// type's or a setup's name is kept as typed (example_options reads it).
CLI::Option* add_example_flag(CLI::App* command, const ExampleParameter& parameter, ModelFlags& flags) {
    const std::string flag = "--" + std::string(parameter.name);
    const std::string help(parameter.help);
    switch (parameter.kind()) {
    case ExampleParameter::Kind::count:
        return command->add_option(flag, flags.*std::get<std::optional<std::int64_t> ExampleOptions::*>(parameter.field), help);
    case ExampleParameter::Kind::toggle:
        return command->add_flag(flag, flags.*std::get<bool ExampleOptions::*>(parameter.field), help);
    case ExampleParameter::Kind::type:
    case ExampleParameter::Kind::buffers:
        break;
    }
    return command->add_option_function<std::string>(
        flag, [&flags, name = std::string(parameter.name)](const std::string& text) { flags.names[name] = text; }, help);
}

} // namespace

void add_model_flags(CLI::App* command, ModelFlags& flags) {
    const std::string group = "Example options";
    command->add_option("--preset", flags.preset, "a real model's shapes, under the flags given: " + model_preset_names())
        ->group(group);
    for (const ExampleParameter& parameter : example_parameters()) {
        add_example_flag(command, parameter, flags)->group(group);
    }
}

// CLI11 makes a number past 2^64 - 1 into 2^64 - 1 without a word; a byte count must be
// exactly what was typed.
const CLI::Validator kWholeBytes(
    [](const std::string& text) -> std::string {
        std::uint64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error == std::errc::result_out_of_range) {
            return "must be below 2^64 bytes, got " + text;
        }
        if (error != std::errc{} || end != text.data() + text.size()) {
            return "must be a whole number of bytes, got " + text;
        }
        return "";
    },
    "BYTES");

void add_buffer_flags(CLI::App* command, BufferFlags& flags, const std::string& group) {
    command->add_option("--alignment", flags.alignment, "alignment of every buffer type")->group(group)->check(kWholeBytes);
    command->add_option("--max-size", flags.max_size, "max_size of every buffer type")->group(group)->check(kWholeBytes);
    command->add_option("--alloc-size", flags.alloc_size, "alloc size rule of every buffer type: nbytes or cuda")->group(group);
}

void add_full_names_flag(CLI::App* command, bool& full_names) {
    command->add_flag("--full-names", full_names,
                      "write every name whole in the table (default: a name wider than " + std::to_string(kNameColumns) +
                          " columns is cut, ending in \u2026; --json always writes names whole)");
}

void add_graph_input(CLI::App* command, GraphInput& input) {
    static const std::string version_help =
        "plan by the rules of this ggml allocator state, or of the state a ggml version, a llama.cpp build bNNNN "
        "or a ggml or llama.cpp commit carries (gallocsim versions lists them; default: the newest, " +
        std::string(newest_profile().name) + "), or of a policy file (docs/policies.md)";
    command->add_option("input", input.input,
                        "graph file (- reads standard input), capture folder (gallocsim capture), or example name (see "
                        "`gallocsim examples`)")
        ->required();
    command->add_option("--ggml-version,--policy", input.ggml_version,
                        version_help + "; for a capture's call, the default is the state its program's ggml carried");
    command->add_option("--call", input.call,
                        "for a capture folder: plan the call SESSION:CALL (session-N.jsonl's N and a call number in it; "
                        "default: the call that set the largest buffer)");
    add_model_flags(command, input.model);
    add_buffer_flags(command, input.buffers, "Buffer options");
}

} // namespace gallocsim::cli
