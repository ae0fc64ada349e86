#include "simulator/cli/graph_input.hpp"

#include "simulator/cli/errors.hpp"
#include "simulator/model/buffer_settings.hpp"
#include "simulator/analysis/planned_by.hpp"
#include "simulator/model/capture_call.hpp"
#include "simulator/model/capture_session.hpp"
#include "simulator/trace/capture_replay.hpp"
#include "simulator/model/input_file.hpp"
#include "reference/dynamic_allocator.hpp"
#include "reference/version_map.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>
#include <sstream>
#include <string>

namespace gallocsim::cli {
namespace fs = std::filesystem;

namespace {

bool any_model_flag(const ModelFlags& f) {
    return f.preset || !f.names.empty() ||
           std::ranges::any_of(example_parameters(), [&](const ExampleParameter& parameter) { return is_given(parameter, f); });
}

// What a name that is no type (or no setup) was meant to be, as the error says.
std::string unknown_name_text(const ExampleParameter& parameter, const std::string& name) {
    const char* what = parameter.kind() == ExampleParameter::Kind::type ? "type" : "setup";
    return "--" + std::string(parameter.name) + ": unknown " + what + " \"" + name + "\" (" + std::string(parameter.values) + ")";
}

bool names_a_capture(const GraphInput& input) {
    std::error_code ec;
    return input.input != "-" && fs::is_directory(input.input, ec) && is_capture_dir(input.input);
}

// The capture and the call of it the input asks for. The capture is loaded for each question
// (its graph, its profile): a few small session files, against planning a whole graph.
struct CaptureCall {
    Capture capture;
    PickedCall picked;
};

CaptureCall capture_call(const GraphInput& input) {
    CaptureCall result{load_capture(input.input), {}};
    if (result.capture.sessions.empty()) {
        throw GraphFileError(input.input + ": no session of the capture could be read" +
                             (result.capture.errors.empty() ? std::string() : ": " + result.capture.errors.front()));
    }
    result.picked = input.call.empty() ? call_that_set_the_largest_buffer(result.capture) : call_named(result.capture, input.call);
    return result;
}

GraphFile capture_call_graph(const GraphInput& input) {
    const CaptureCall chosen = capture_call(input);
    GraphFile file = load_call_graph(*chosen.picked.session, *chosen.picked.call);
    // The name every report's first line carries: the graph, and which call of which capture it was.
    const std::string graph = file.name.empty() ? fs::path(chosen.picked.call->graph).stem().string() : file.name;
    file.name = graph + " (" + fs::path(input.input).filename().string() + ", " + picked_call_text(chosen.picked) + ")";
    return file;
}

} // namespace

std::string input_name(const GraphInput& input) {
    return input.input == "-" ? "standard input" : input.input;
}

GraphFile load_graph_input(const GraphInput& input) {
    std::optional<std::string> standard_input;
    return load_graph_input(input, standard_input);
}

GraphFile load_graph_input(const GraphInput& input, std::optional<std::string>& standard_input) {
    GraphFile file;
    std::error_code ec;
    if (!input.call.empty() && !names_a_capture(input)) {
        throw UsageError("--call picks a call of a capture folder; " + input_name(input) + " is not one");
    }
    if (input.input == "-") {
        if (any_model_flag(input.model)) {
            throw UsageError("-: example options (--layers, --embd, ...) apply to built-in examples only");
        }
        if (!standard_input) {
            standard_input = read_input_stream(std::cin, "standard input");
        }
        file = parse_graph_file(*standard_input, "standard input");
    } else if (names_a_capture(input)) {
        if (any_model_flag(input.model)) {
            throw UsageError(input.input + ": example options (--layers, --embd, ...) apply to built-in examples only");
        }
        file = capture_call_graph(input);
    } else if (fs::is_directory(input.input, ec)) {
        throw GraphFileError(input.input + ": is a folder, but not a capture (no session-N.jsonl): not a graph file");
    } else if (fs::exists(input.input, ec)) {
        if (any_model_flag(input.model)) {
            throw UsageError(input.input + ": example options (--layers, --embd, ...) apply to built-in examples only");
        }
        if (const auto capture = capture_holding(input.input)) {
            throw GraphFileError(input.input + ": part of the capture in " + capture->string() +
                                 ", not a graph file; give the capture folder (--call SESSION:CALL picks a call)");
        }
        file = load_graph_file(input.input);
    } else if (input.input.find('/') == std::string::npos && input.input.find(".json") == std::string::npos) {
        file = example_from_flags(input.input, input.model);
    } else {
        throw GraphFileError(input.input + ": no such file");
    }
    apply_buffer_overrides(file, buffer_overrides(input.buffers));
    return file;
}

Rules chosen_rules(const std::string& ggml_version, std::string_view option) {
    try {
        return resolve_rules(ggml_version);
    } catch (const UnknownRules& unknown) {
        throw UsageError(std::string(option) + " " + ggml_version + ": " + unknown.what());
    }
}

namespace {

// What the version map says of the picked call's program, when its state decides the plan.
std::optional<VersionMatch> capture_version(const GraphInput& input) {
    if (!input.ggml_version.empty() || !names_a_capture(input)) {
        return std::nullopt;
    }
    return session_profile(*capture_call(input).picked.session);
}

// The rules a capture's call is planned by (`match`: capture_version's answer), else --ggml-version's.
Rules rules_for(const GraphInput& input, const std::optional<VersionMatch>& match) {
    if (!match) {
        return chosen_rules(input.ggml_version);
    }
    if (match->profile == nullptr) {
        throw UsageError(input.input + ": " + match->note + "; name the state with --ggml-version");
    }
    return Rules(*match->profile);
}

} // namespace

Rules chosen_rules(const GraphInput& input) {
    return rules_for(input, capture_version(input));
}

std::string planned_by(const GraphInput& input, const GraphFile& file) {
    const std::optional<VersionMatch> match = capture_version(input);  // the capture read once for both
    std::string text = planned_by_text(rules_for(input, match).profile(), file.buffer_types);
    // When the capture's program could have run more than one state, the first line says so.
    if (match && !match->note.empty()) {
        text += " (" + match->note + "; --ggml-version picks another)";
    }
    return text;
}

GraphFile example_from_flags(const std::string& name, const ModelFlags& flags) {
    ExampleOptions options = example_options(flags);
    if (flags.preset) {
        const ModelPreset* preset = find_model_preset(*flags.preset);
        if (preset == nullptr) {
            throw UsageError("--preset: unknown model \"" + *flags.preset + "\" (" + model_preset_names() + ")");
        }
        if (preset->example != name) {
            throw UsageError("--preset " + *flags.preset + " shapes the " + std::string(preset->example) +
                             " example, not " + name);
        }
        options = with_preset(options, *preset);
    }
    return make_example(name, options);
}

ExampleOptions example_options(const ModelFlags& flags) {
    ExampleOptions options = flags;  // the counts and switches, as given
    for (const ExampleParameter& parameter : example_parameters()) {  // in the table's order, as --help lists them
        const auto name = flags.names.find(parameter.name);
        if (name != flags.names.end() && !set_named_value(parameter, name->second, options)) {
            throw UsageError(unknown_name_text(parameter, name->second));
        }
    }
    return options;
}

BufferOverrides buffer_overrides(const BufferFlags& f) {
    if (f.alignment && !is_valid_alignment(*f.alignment)) {
        throw UsageError("--alignment must be a power of two, got " + std::to_string(*f.alignment));
    }
    if (f.max_size && *f.max_size == 0) {
        throw UsageError("--max-size must be positive");
    }
    BufferOverrides o{f.alignment, f.max_size, std::nullopt};
    if (f.alloc_size) {
        o.alloc_size = parse_alloc_size_rule(*f.alloc_size);
        if (!o.alloc_size) {
            throw UsageError("--alloc-size: unknown rule \"" + *f.alloc_size + "\" (nbytes or cuda)");
        }
    }
    return o;
}

} // namespace gallocsim::cli
