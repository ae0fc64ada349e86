// What every command that plans a graph shares: example flags (--layers, --tokens, ...)
// and buffer flags (--alignment, --max-size, --alloc-size) on plan, trace, walk and
// stats; walk's scripted commands; plan's --measure (reserve_n_size) and --reserve-with
// (reserve on one graph, alloc_graph on another).
#include "simulator/cli/command_line.hpp"
#include "simulator/cli/commands.hpp"
#include "simulator/cli/step_commands.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/plan.hpp"

#include "cli_run.hpp"
#include "explained_steps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gallocsim::cli {
namespace {

using test_support::Result;
using test_support::run;
using test_support::run_walk;
using test_support::step_column;

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

// Writes an example as a graph file in the test's temporary folder.
std::string write_example(const std::string& file_name, const std::string& example, const ExampleOptions& options = {}) {
    const auto path = std::filesystem::path(::testing::TempDir()) / file_name;
    std::ofstream(path) << graph_file_to_json(make_example(example, options));
    return path.string();
}

GraphInput mlp_with_one_layer() {
    GraphInput input{.input = "mlp"};
    input.model.layers = 1;
    input.model.tokens = 2;
    return input;
}

TEST(GraphInputFlags, ExampleFlagsReachPlanTraceWalkAndStats) {
    const GraphInput mlp = mlp_with_one_layer();
    // One layer, two rows of 64 floats (512 bytes each): input, fc0, its bias add (in
    // place of fc0) and soft_max (in place of the bias add).
    const Result plan_result = run(plan, PlanOptions{.graph = mlp});
    EXPECT_EQ(plan_result.code, 0);
    EXPECT_EQ(plan_result.out,
              "mlp-l1-e64-f256-t2: planned by llama.cpp-0c1e570 (the newest state); buffer type CPU: alignment 32, no max size\n"
              "tensor  kind  buffer  chunk        offset        size\n"
              "input   leaf       0      0             0         512\n"
              "fc0     node       0      0           512         512\n"
              "fc0_b   node       0      0           512         512\n"
              "probs   node       0      0           512         512\n"
              "\n"
              "buffer 0 (CPU, alignment 32): 1024 bytes (1.00 KiB)\n");
    EXPECT_EQ(first_line(run(trace, TraceOptions{.graph = mlp}).out), "mlp-l1-e64-f256-t2: 27 events, 3 node steps; planned by llama.cpp-0c1e570 (the newest state); buffer type CPU: alignment 32, no max size");
    EXPECT_EQ(first_line(run(stats, StatsOptions{.graph = mlp, .summary_only = true}).out),
              "mlp-l1-e64-f256-t2: 27 events, 3 node steps; planned by llama.cpp-0c1e570 (the newest state); buffer type CPU: alignment 32, no max size");
    EXPECT_EQ(first_line(run_walk({.graph = mlp}).out), "Walking mlp-l1-e64-f256-t2: 27 events, 3 node steps; planned by llama.cpp-0c1e570 (the newest state); buffer type CPU: alignment 32, no max size. Type h for help.");
}

TEST(GraphInputFlags, BufferFlagsOverrideTheBufferTypes) {
    GraphInput seed{.input = "seed"};
    seed.buffers.alignment = 64;
    // 64-byte alignment: b moves from 32 to 64, and the buffer doubles.
    const Result planned = run(plan, PlanOptions{.graph = seed});
    EXPECT_NE(planned.out.find("b       leaf       0      0            64           4\n"), std::string::npos) << planned.out;
    EXPECT_NE(planned.out.find("buffer 0 (CPU, alignment 64): 128 bytes (128 B)\n"), std::string::npos) << planned.out;
    // trace explains the plan with 64-byte alignment (explain_test checks the sentence itself).
    GraphFile seed_aligned_to_64 = make_example("seed");
    seed_aligned_to_64.buffer_types.at(0).alignment = 64;
    const test_support::ExplainedSteps aligned_steps(std::move(seed_aligned_to_64));
    const std::size_t b_placed = aligned_steps.step_of(EventKind::leaf_allocated, "b");
    EXPECT_EQ(run(trace, TraceOptions{.graph = seed, .from = b_placed, .to = b_placed}).out,
              "seed-mul: 17 events, 1 node step; planned by llama.cpp-0c1e570 (the newest state); buffer type CPU: alignment 64, no max size\n" + step_column(b_placed) + "  leaf-allocated     " +
                  aligned_steps[b_placed] + "\n");

    // max_size 32: b does not fit next to a, so it opens a second chunk (one more step).
    GraphInput chunked{.input = "seed"};
    chunked.buffers.max_size = 32;
    const Result stats_result = run(stats, StatsOptions{.graph = chunked, .summary_only = true});
    EXPECT_EQ(first_line(stats_result.out), "seed-mul: 18 events, 1 node step; planned by llama.cpp-0c1e570 (the newest state); buffer type CPU: alignment 32, max size 32 B");
    EXPECT_NE(stats_result.out.find("allocations: 2 (0 best fit, 0 from a tail, 2 in a new chunk)"), std::string::npos)
        << stats_result.out;
}

TEST(GraphInputFlags, ExampleFlagsOnAFileAndBadValuesAreInputErrors) {
    GraphInput file{.input = write_example("seed.json", "seed")};
    file.model.layers = 2;
    const Result on_file = run(stats, StatsOptions{.graph = file});
    EXPECT_EQ(on_file.code, 2);
    EXPECT_EQ(on_file.err, file.input + ": example options (--layers, --embd, ...) apply to built-in examples only\n");

    GraphInput bad_rule{.input = "seed"};
    bad_rule.buffers.alloc_size = "bogus";
    const Result rule = run(trace, TraceOptions{.graph = bad_rule});
    EXPECT_EQ(rule.code, 2);
    EXPECT_EQ(rule.err, "--alloc-size: unknown rule \"bogus\" (nbytes or cuda)\n");

    GraphInput bad_alignment{.input = "seed"};
    bad_alignment.buffers.alignment = 48;
    EXPECT_EQ(run_walk({.graph = bad_alignment}).err, "--alignment must be a power of two, got 48\n");
}

TEST(WalkCommands, RunInOrderAfterAPromptWithoutReadingInput) {
    const Result result = run_walk({.graph = {.input = "seed"}, .commands = {"j 4", "q", "n"}}, "p\n");
    EXPECT_EQ(result.code, 0);
    const test_support::ExplainedSteps step(make_example("seed"));
    EXPECT_EQ(result.out,
              "Walking seed-mul: 17 events, 1 node step; planned by llama.cpp-0c1e570 (the newest state); buffer type CPU: alignment 32, no max size. Type h for help.\n"
              "At the start, before event 1 of 17.\n"
              "Next, event 1: " + step[1] + "\n"
              "> j 4\n"
              "Event 4 of 17 (leafs): " + step[4] + "\n"
              "Next, event 5: " + step[5] + "\n"
              "> q\n");
    // q ended the walk: neither "n" nor the standard input's "p" ran.
}

// The seed trace has steps 0 to 17 (it is 17 events long), so j 99 cannot be done.
TEST(WalkCommands, AScriptedCommandThatCannotBeDoneExitsWithTwo) {
    const Result result = run_walk({.graph = {.input = "seed"}, .commands = {"j 99", "n"}});
    EXPECT_EQ(result.code, 2);
    EXPECT_NE(result.out.find("> j 99\nj needs an event number from 0 to 17.\n> n\n"), std::string::npos) << result.out;
    EXPECT_EQ(run_walk({.graph = {.input = "seed"}, .commands = {"j 9", "q"}}).code, 0);
}

// A tensor name is the rest of the line: spaces need no quotes, and quotes are taken off.
// sched-issue's first node is ab = a2 * b2; renamed "a b (x)", b finds it where ab is.
TEST(WalkCommands, NamesWithSpacesNeedNoQuotes) {
    GraphFile file = make_example("sched-issue");
    file.context.find("ab")->name = "a b (x)";
    const auto path = std::filesystem::path(::testing::TempDir()) / "spaced-names.json";
    std::ofstream(path) << graph_file_to_json(file);
    const Result plain = run_walk({.graph = {.input = path.string()}, .commands = {"b a b (x)"}});
    EXPECT_EQ(plain.code, 0) << plain.out;
    EXPECT_NE(plain.out.find("): a b (x) "), std::string::npos) << plain.out;
    const Result quoted = run_walk({.graph = {.input = path.string()}, .commands = {"b \"a b (x)\""}});
    EXPECT_EQ(quoted.out, plain.out.substr(0, plain.out.find("> b ")) + "> b \"a b (x)\"" +
                              plain.out.substr(plain.out.find("> b a b (x)") + std::string("> b a b (x)").size()));
    EXPECT_EQ(run_walk({.graph = {.input = "seed"}, .commands = {"j 1 2"}}).code, 2);  // j takes one word
}

// The end of input (Ctrl-D at a terminal) ends the walk like q.
TEST(WalkCommands, EndOfInputEndsTheWalkCleanly) {
    const Result result = run_walk({.graph = {.input = "seed"}}, "n\n");
    EXPECT_EQ(result.code, 0);
    EXPECT_EQ(result.err, "");
}

// k node-started goes to the first node's start: ab = a2 * b2, which has not run yet.
TEST(WalkCommands, StateCountsConsumersInWords) {
    const Result result = run_walk({.graph = {.input = "sched-issue"}, .commands = {"k node-started", "s"}});
    const std::string state = result.out.substr(result.out.find("> s\n"));
    const std::size_t ab_starts =
        test_support::find_step(record_trace(make_example("sched-issue")), EventKind::node_started, "ab");
    EXPECT_EQ(state,
              "> s\n"
              "After event " + std::to_string(ab_starts) + ": 96 bytes live, high-water mark 96 bytes, 0 bytes free "
              "below it, 0.0 % of it in holes (largest hole 0, fragmentation 0.00).\n"
              "Buffer 0 (CPU), chunk 0: high-water mark 96, free blocks: [96, unbounded)\n"
              "Live tensors (3):\n"
              "  a2: chunk 0, offset 32, 4 bytes, 1 consumer and 0 views left\n"
              "  b2: chunk 0, offset 64, 4 bytes, 1 consumer and 0 views left\n"
              "  c: chunk 0, offset 0, 4 bytes, 1 consumer and 0 views left\n");
}

TEST(PlanMeasure, ReportsReserveNSizePerBufferIdWithSharedTypesRepeated) {
    EXPECT_EQ(run(plan, PlanOptions{.graph = {.input = "seed"}, .measure = true}).out,
              "reserve_n_size on seed-mul (plans, allocates nothing):\n"
              "buffer 0 (CPU, alignment 32): 64 bytes\n");

    // Two buffer ids of one type share an allocator: reserve_n_size reports its total twice.
    GraphFile file = make_example("seed");
    file.buffers = {0, 0};
    file.leaf_buffer_ids = {0, 1};
    file.node_buffer_ids = {1};
    const auto path = std::filesystem::path(::testing::TempDir()) / "seed-two-ids.json";
    std::ofstream(path) << graph_file_to_json(file);
    EXPECT_EQ(run(plan, PlanOptions{.graph = {.input = path.string()}, .measure = true}).out,
              "reserve_n_size on seed-mul (plans, allocates nothing):\n"
              "buffer 0 (CPU, alignment 32): 64 bytes\n"
              "buffer 1 (CPU, alignment 32): 64 bytes (shares buffer 0's allocator, so this is its total again)\n");
}

// mlp with 3 layers, 64 wide, ff 256, on t tokens: input (64 x t floats) takes [0, 256t);
// fc0 (256 x t floats, MUL_MAT: never in place) goes after it, [256t, 1280t); input is then
// freed; fc0_b and relu0 run in place of fc0; fc1 (1024t bytes) does not fit the 256t-byte
// hole and takes [1280t, 2304t); the rest fits below. So the buffer is 2304t bytes: 18432
// for 8 tokens, 36864 for 16.
TEST(PlanReserveWith, KeepsTheReservedPlanWhenTheGraphFits) {
    GraphInput fewer_tokens{.input = "mlp"};
    fewer_tokens.model.tokens = 4;  // the example's default, which --reserve-with uses, is 8
    const Result result = run(plan, PlanOptions{.graph = fewer_tokens, .reserve_with = "mlp"});
    EXPECT_EQ(result.code, 0);
    EXPECT_EQ(result.out.substr(0, result.out.find("\n\n")),
              "reserve_n on mlp-l3-e64-f256-t8: buffer 0: 18432 bytes\n"
              "alloc_graph on mlp-l3-e64-f256-t4: needs_realloc says no: the graph has as many nodes and leafs as the "
              "reserved one, and every tensor fits the bytes reserved for it, so each takes its reserved place.");
    EXPECT_NE(result.out.find("buffer 0 (CPU, alignment 32): 18432 bytes"), std::string::npos);
}

TEST(PlanReserveWith, RePlansWithOneBufferAndSaysWhy) {
    GraphInput more_tokens{.input = "mlp"};
    more_tokens.model.tokens = 16;
    const Result bigger = run(plan, PlanOptions{.graph = more_tokens, .reserve_with = "mlp"});
    EXPECT_EQ(bigger.code, 0);
    EXPECT_EQ(bigger.out.substr(0, bigger.out.find("\n\n")),
              "reserve_n on mlp-l3-e64-f256-t8: buffer 0: 18432 bytes\n"
              "alloc_graph on mlp-l3-e64-f256-t16: needs_realloc says yes: node fc0 needs 16384 bytes, and the reserved "
              "plan holds 8192 for it.\n"
              "With one buffer id, alloc_graph re-plans by itself (reserve); a buffer is allocated anew only where a "
              "chunk grows, so now buffer 0: 36864 bytes.");

    // A smaller graph with fewer nodes is re-planned too, but the buffer does not shrink.
    const Result smaller = run(plan, PlanOptions{.graph = {.input = "seed"}, .reserve_with = "sched-issue"});
    EXPECT_EQ(smaller.code, 0);
    EXPECT_NE(smaller.out.find("needs_realloc says yes: the graph has 1 node, the reserved plan 2 nodes.\n"),
              std::string::npos);
    EXPECT_NE(smaller.out.find("so now buffer 0: 96 bytes.\n"), std::string::npos) << smaller.out;
}

TEST(PlanReserveWith, FailsWithSeveralBufferIdsAsGgmlDoes) {
    ExampleOptions split;
    split.buffers = BufferSetup::split;
    split.tokens = 4;
    GraphInput eight_tokens{.input = "llama"};
    eight_tokens.model.buffers = BufferSetup::split;
    eight_tokens.model.tokens = 8;
    const Result result =
        run(plan, PlanOptions{.graph = eight_tokens, .reserve_with = write_example("split4.json", "llama", split)});
    EXPECT_EQ(result.code, 1);
    // The reserved sizes are those of the 4-token graph planned alone; inp_embd is 64 floats
    // per token: 1024 bytes for 4 tokens, 2048 for 8.
    GraphFile four_tokens = make_example("llama", split);
    const PlanRun reserved = run_plan(four_tokens);
    ASSERT_EQ(reserved.plan.buffer_sizes.size(), 2u);
    EXPECT_EQ(result.out,
              "reserve_n on llama-l1-e64-h4-f160-v256-t4: buffer 0: " + std::to_string(reserved.plan.buffer_sizes[0]) +
                  " bytes, buffer 1: " + std::to_string(reserved.plan.buffer_sizes[1]) + " bytes\n"
              "alloc_graph on llama-l1-e64-h4-f160-v256-t8: needs_realloc says yes: node inp_embd needs 2048 bytes, and the "
              "reserved plan holds 1024 for it.\n"
              "With 2 buffer ids, alloc_graph cannot re-plan by itself: it fails, and the caller (ggml_backend_sched) "
              "calls reserve_n with the ids and tries again.\n");
    EXPECT_EQ(result.err, "llama: the graph needs a new plan and there are 2 buffers: call reserve_n with the buffer ids "
                          "first\n");
}

TEST(PlanReserveWith, RefusesGraphsWithDifferentBufferTypes) {
    ExampleOptions split;
    split.buffers = BufferSetup::split;
    const std::string other = write_example("llama-split.json", "llama", split);
    const Result result = run(plan, PlanOptions{.graph = {.input = "seed"}, .reserve_with = other});
    EXPECT_EQ(result.code, 2);
    EXPECT_EQ(result.err, "'llama-l1-e64-h4-f160-v256-t1' and 'seed-mul' have different buffer types or buffer ids; one allocator "
                          "cannot serve both\n");
}


// `gallocsim ARGS...`, in-process.
Result run_args(std::vector<std::string> args) {
    args.insert(args.begin(), "gallocsim");
    std::vector<const char*> argv;
    for (const std::string& arg : args) {
        argv.push_back(arg.c_str());
    }
    std::istringstream in;
    std::ostringstream out, err;
    const int code = run_command_line(static_cast<int>(argv.size()), argv.data(), {in, out, err});
    return Result{code, out.str(), err.str()};
}

// predict refuses bad options before it runs llama.cpp (so without a venv): exit 2 and a message
// naming the option and the item, or the file. Any existing file serves, the options are read first.
TEST(PredictCommand, BadOptionsAndMissingFilesAreInputErrors) {
    const std::string some_file = std::string(GALLOCSIM_TEST_DATA_DIR) + "/captures/tiny-llama/session-0.jsonl";
    const struct {
        std::vector<std::string> args;
        std::string message;
    } cases[] = {
        {{"predict", "/no/such/model.gguf"}, "gallocsim predict: /no/such/model.gguf: no such file\n"},
        {{"predict", some_file, "--ctx", "4096,lots"},
         "gallocsim predict: --ctx takes a comma list of positive whole numbers; \"lots\" is not one\n"},
        {{"predict", some_file, "--ctx", "4096,,8192"}, "gallocsim predict: --ctx \"4096,,8192\" has an empty item\n"},
        {{"predict", some_file, "--flash-attn", "on,"}, "gallocsim predict: --flash-attn \"on,\" has an empty item\n"},
        {{"predict", some_file, "--parallel", "-1"},
         "gallocsim predict: --parallel takes a comma list of positive whole numbers; \"-1\" is not one\n"},
        {{"predict", some_file, "--n-gpu-layers", "x"},
         "gallocsim predict: --n-gpu-layers takes a comma list of whole numbers; \"x\" is not one\n"},
        {{"predict", some_file, "--kv-type", "f16,q9"},
         "gallocsim predict: unknown --kv-type \"q9\" (llama.cpp's KV cache takes bf16, f16, f32, iq4_nl, q4_0, q4_1, "
         "q5_0, q5_1, q8_0)\n"},
        {{"predict", some_file, "--flash-attn", "sometimes"},
         "gallocsim predict: --flash-attn takes on, off or auto; \"sometimes\" is none of them\n"},
        {{"predict", some_file, "--budget", "24 elephants"},
         "gallocsim predict: --budget takes a size such as 24GiB, 512MiB or 16GB; \"24 elephants\" is not one\n"},
    };
    for (const auto& c : cases) {
        const Result result = run_args(c.args);
        EXPECT_EQ(result.code, 2) << c.message;
        EXPECT_EQ(result.err, c.message);
        EXPECT_EQ(result.out, "");
    }
}

// The "defaults:" line `gallocsim examples` writes under an example, as a list of
// "--option value" arguments (a switch that is "off" is left out, as it is when not given).
std::vector<std::string> listed_default_flags(const std::string& listing, const std::string& example) {
    std::istringstream lines(listing);
    std::string line;
    while (std::getline(lines, line) && !line.starts_with(example + " ")) {
    }
    while (std::getline(lines, line) && line.starts_with(" ")) {
        const auto at = line.find("defaults: ");
        if (at == std::string::npos) {
            continue;
        }
        std::vector<std::string> flags;
        std::istringstream items(line.substr(at + 10));
        for (std::string item; std::getline(items, item, ',');) {
            std::istringstream words(item);
            std::string option, value;
            words >> option >> value;
            if (value != "off") {
                flags.insert(flags.end(), {"--" + option, value});
            }
        }
        return flags;
    }
    return {};
}

// `gallocsim examples` says every default, not "llama-tiny-t1.json's model": llama's are that
// golden file's model, whose description reads "n_embd=64, n_ff=160, n_head=4, n_layer=1,
// n_tokens=1, n_vocab=256, wtype=f32; buffers=cpu"; n_outputs 0 is every token, and the
// switches are off unless given.
TEST(ExamplesListing, SaysEveryDefaultValue) {
    std::ostringstream out;
    ASSERT_EQ(list_examples(out), 0);
    EXPECT_NE(out.str().find("\n              defaults: layers 1, embd 64, heads 4, ff 160, tokens 1, vocab 256, "
                             "weights f32, buffers cpu, outputs 0 (every token), inplace off, mask off, clamp off\n"),
              std::string::npos)
        << out.str();
    for (const std::string example : {"mlp", "llama", "gpt2"}) {
        EXPECT_FALSE(listed_default_flags(out.str(), example).empty()) << example << " has no defaults line";
    }
}

// What the listing says is what the example takes: its defaults given back as flags export the
// very graph file that no flags give (name, description and tensors), for every example.
TEST(ExamplesListing, ListedDefaultsGivenAsFlagsBuildTheDefaultGraph) {
    std::ostringstream listing;
    ASSERT_EQ(list_examples(listing), 0);
    for (const std::string example : {"mlp", "llama", "gpt2"}) {
        std::vector<std::string> flags = listed_default_flags(listing.str(), example);
        ASSERT_FALSE(flags.empty()) << example;
        flags.insert(flags.begin(), {"examples", example});
        const Result given = run_args(flags);
        ASSERT_EQ(given.code, 0) << given.err;
        EXPECT_EQ(given.out, run_args({"examples", example}).out) << example;
    }
}

// The lines of a command's --help from `heading` to the blank line after it.
std::vector<std::string> help_section(const std::string& help, const std::string& heading) {
    std::istringstream lines(help);
    std::string line;
    while (std::getline(lines, line) && line != heading) {
    }
    std::vector<std::string> section;
    while (std::getline(lines, line) && !line.empty()) {
        section.push_back(line);
    }
    return section;
}

// The flags of a line such as "              options: --layers --embd": the words after `label`.
std::vector<std::string> words_after(const std::string& line, const std::string& label) {
    std::istringstream words(line.substr(line.find(label) + label.size()));
    std::vector<std::string> flags;
    for (std::string word; words >> word;) {
        flags.push_back(word);
    }
    return flags;
}

// The command line's example flags, the listing and the examples come from one table
// (example_parameters()): every command taking example flags declares exactly --preset and a flag
// per entry, in the table's order, with the entry's help; every flag `gallocsim examples` lists
// under an example is an entry, the ones that example takes, and every entry is taken by some
// example. (The GUI's dialog rows: gui/tests/main_window_test.cpp.)
TEST(ExampleParameters, FlagsAndListingComeFromTheOneTable) {
    std::vector<std::string> table_flags{"--preset"};
    for (const ExampleParameter& parameter : example_parameters()) {
        table_flags.push_back("--" + std::string(parameter.name));
    }
    for (const std::string command : {"plan", "examples", "diff", "compare", "why"}) {
        const Result help = run_args({command, "--help"});
        ASSERT_EQ(help.code, 0) << help.err;
        const std::vector<std::string> lines = help_section(help.out, "Example options:");
        std::vector<std::string> declared;
        for (const std::string& line : lines) {
            declared.push_back(words_after(line, "").front());
        }
        EXPECT_EQ(declared, table_flags) << command;
        for (std::size_t i = 1; i < lines.size() && i < table_flags.size(); ++i) {
            EXPECT_TRUE(lines[i].ends_with(" " + std::string(example_parameters()[i - 1].help))) << lines[i];
        }
    }

    const Result listing = run_args({"examples"});
    ASSERT_EQ(listing.code, 0) << listing.err;
    std::vector<std::string> listed;  // every "options:" line's flags, example after example
    std::istringstream lines(listing.out);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("options: ") != std::string::npos) {
            for (const std::string& flag : words_after(line, "options:")) {
                listed.push_back(flag);
            }
        }
    }
    std::vector<std::string> taken;  // what each example takes, by the model, in the same order
    for (const ExampleInfo& example : gallocsim::list_examples()) {
        EXPECT_EQ(example.defaults.size(), example.options.size()) << example.name;
        for (const std::string& option : example.options) {
            ASSERT_NE(find_example_parameter(option), nullptr) << example.name << " takes " << option;
            taken.push_back("--" + option);
        }
    }
    EXPECT_EQ(listed, taken);
    for (const std::string& flag : std::vector(table_flags.begin() + 1, table_flags.end())) {
        EXPECT_NE(std::ranges::find(listed, flag), listed.end()) << flag << " is taken by no example";
    }
}

} // namespace
} // namespace gallocsim::cli
