#include "simulator/cli/subcommand.hpp"

#include "reference/profile.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/model/visible_text.hpp"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <system_error>

namespace gallocsim::cli {

void add_model_flags(CLI::App* command, ModelFlags& flags) {
    const std::string group = "Example options";
    command->add_option("--preset", flags.preset, "a real model's shapes, under the flags given: " + model_preset_names())
        ->group(group);
    command->add_option("--layers", flags.layers, "transformer blocks / linear layers")->group(group);
    command->add_option("--embd", flags.embd, "model width")->group(group);
    command->add_option("--heads", flags.heads, "attention heads")->group(group);
    command->add_option("--ff", flags.ff, "feed-forward (hidden) width")->group(group);
    command->add_option("--tokens", flags.tokens, "tokens in the batch")->group(group);
    command->add_option("--vocab", flags.vocab, "vocabulary size")->group(group);
    command->add_option("--outputs", flags.outputs, "llama: tokens whose logits are computed")->group(group);
    command->add_option("--weights", flags.weights, "weight type (f32, f16, q4_0, q8_0, q4_k, ...)")->group(group);
    command->add_option("--buffers", flags.buffers, "cpu, cuda or split (CUDA0 + CPU)")->group(group);
    command->add_flag("--inplace", flags.inplace, "llama: in-place rope, scale, soft_max, silu, gate product")->group(group);
    command->add_flag("--mask", flags.mask, "llama: a kq_mask input for soft_max")->group(group);
    command->add_flag("--clamp", flags.clamp, "llama: Q, K and V clamped after their projections (olmo's clamp_kqv)")->group(group);
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
        "plan by the rules of this ggml allocator state, of the state a ggml version carries (gallocsim versions "
        "lists them; default: the newest, " + std::string(newest_profile().name) + "), or of a policy file "
        "(docs/policies.md)";
    command->add_option("input", input.input, "graph file (- reads standard input), or example name (see `gallocsim examples`)")->required();
    command->add_option("--ggml-version,--policy", input.ggml_version, version_help);
    add_model_flags(command, input.model);
    add_buffer_flags(command, input.buffers, "Buffer options");
}

} // namespace gallocsim::cli
