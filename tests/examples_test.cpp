// The built-in examples: the sched-issue and llama builders reproduce the golden files'
// graphs tensor for tensor (and so upstream's plans), and the other models are what they
// say they are.
#include "reference/builder.hpp"
#include "simulator/analysis/comparison.hpp"
#include "simulator/model/buffer_settings.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/model/examples.hpp"

#include "golden_files.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace gallocsim {
namespace {

// Everything the allocator reads about a tensor (op_params aside: the golden files do not
// record them), as one line.
std::string describe(const GraphFile& file, const Tensor& t) {
    std::ostringstream s;
    s << t.name << " " << type_name(t.type) << " ne";
    for (auto n : t.ne) s << " " << n;
    s << " nb";
    for (auto n : t.nb) s << " " << n;
    s << " " << op_name(t.op) << " src";
    for (const Tensor* src : t.src) s << " " << (src ? src->name : "-");
    s << " view " << (t.view_src ? t.view_src->name : "-") << "+" << t.view_offs << " flags " << int(t.flags.bits())
      << (file.is_external(t) ? " data" : "");
    return s.str();
}

std::vector<std::string> names(const std::vector<Tensor*>& tensors) {
    std::vector<std::string> out;
    for (const Tensor* t : tensors) out.push_back(t->name);
    return out;
}

// Compares the graphs line by line, so a failure names the first tensor that differs.
void expect_same_graph(const GraphFile& expected, const GraphFile& actual) {
    EXPECT_EQ(actual.buffer_types, expected.buffer_types);
    EXPECT_EQ(actual.buffers, expected.buffers);
    ASSERT_EQ(actual.context.size(), expected.context.size());
    for (std::size_t i = 0; i < expected.context.size(); ++i) {
        ASSERT_EQ(describe(actual, actual.context.tensors()[i]), describe(expected, expected.context.tensors()[i])) << "tensor " << i;
    }
    EXPECT_EQ(names(actual.graph.leafs), names(expected.graph.leafs));
    EXPECT_EQ(names(actual.graph.nodes), names(expected.graph.nodes));
    EXPECT_EQ(actual.leaf_buffer_ids, expected.leaf_buffer_ids);
    EXPECT_EQ(actual.node_buffer_ids, expected.node_buffer_ids);
}

void expect_upstream_plan(const GraphFile& file, const PlanRecord& expected) {
    const PlanRun run = run_plan(file);
    ASSERT_TRUE(run.error.empty()) << run.error;
    for (const std::string& difference : compare_plans(expected, run.plan, file.context)) {
        ADD_FAILURE() << difference;
    }
}

// Throws (and so fails the test, rather than crashing it) when the tensor is missing.
const Tensor& tensor(const GraphFile& file, const std::string& name) {
    const Tensor* t = file.context.find(name);
    if (t == nullptr) {
        throw std::runtime_error("no tensor named " + name);
    }
    return *t;
}

std::filesystem::path golden(const std::string& name) {
    return test_support::golden_dir() / name;
}

TEST(SchedIssueExample, IsTheGoldenGraphAndGetsItsPlan) {
    if (!std::filesystem::exists(golden("seed-sched-issue.json"))) {
        GTEST_SKIP();
    }
    const GraphFile reference = load_graph_file(golden("seed-sched-issue.json"));
    GraphFile example = make_example("sched-issue");
    expect_same_graph(reference, example);
    EXPECT_EQ(example.description, reference.description);
    // c at 0, a2 at 32, b2 at 64; ab in place of a2, result in place of c: 96 bytes.
    expect_upstream_plan(example, *reference.expected);
}

// "llama-style transformer: inplace=True, mask=True, n_embd=4096, ...; buffers=chunked"
struct GoldenLlama {
    LlamaParams params;
    BufferOverrides overrides;
};

GoldenLlama parse_description(const GraphFile& file) {
    std::map<std::string, std::string> values;
    std::string text = file.description.substr(file.description.find(':') + 1);
    std::ranges::replace(text, ';', ',');
    std::istringstream fields(text);
    for (std::string field; std::getline(fields, field, ',');) {
        const auto eq = field.find('=');
        const auto begin = field.find_first_not_of(' ');
        values[field.substr(begin, eq - begin)] = field.substr(eq + 1);
    }
    GoldenLlama g;
    g.params.layers = std::stoll(values.at("n_layer"));
    g.params.embd = std::stoll(values.at("n_embd"));
    g.params.heads = std::stoll(values.at("n_head"));
    g.params.ff = std::stoll(values.at("n_ff"));
    g.params.tokens = std::stoll(values.at("n_tokens"));
    g.params.vocab = std::stoll(values.at("n_vocab"));
    g.params.outputs = values.contains("n_outputs") ? std::stoll(values["n_outputs"]) : 0;
    g.params.weights = *parse_type(values.at("wtype"));
    g.params.inplace = values.contains("inplace");
    g.params.mask = values.contains("mask");
    const std::string buffers = values.at("buffers");
    if (buffers == "chunked") {
        // One CPU type with the file's alignment and max_size.
        g.params.buffers = BufferSetup::cpu;
        g.overrides = {file.buffer_types[0].alignment, file.buffer_types[0].max_size, std::nullopt};
    } else {
        g.params.buffers = *parse_buffer_setup(buffers);
    }
    return g;
}

TEST(GoldenLlamaFiles, AreRebuiltExactlyByTheLlamaExample) {
    test_support::for_each_golden_file("llama-", [](const std::filesystem::path& path) {
        const GraphFile reference = load_graph_file(path);
        const GoldenLlama g = parse_description(reference);
        GraphFile example = llama_example(g.params);
        apply_buffer_overrides(example, g.overrides);
        expect_same_graph(reference, example);
        expect_upstream_plan(example, *reference.expected);
    });
}

TEST(LlamaExample, DefaultsAreTheTinyModel) {
    const GraphFile file = make_example("llama");
    EXPECT_EQ(file.description,
              "llama-style transformer: n_embd=64, n_ff=160, n_head=4, n_layer=1, n_tokens=1, n_vocab=256, wtype=f32; buffers=cpu");
    EXPECT_EQ(file.context.size(), 48u);
    EXPECT_EQ(file.graph.leafs.size(), 14u);
    EXPECT_EQ(file.graph.nodes.size(), 34u);
}

TEST(LlamaExample, OptionsShapeTheGraph) {
    ExampleOptions options;
    options.layers = 2;
    options.embd = 128;
    options.heads = 8;
    options.ff = 256;
    options.tokens = 16;
    options.weights = DataType::q4_0;
    const GraphFile file = make_example("llama", options);
    EXPECT_EQ(file.graph.nodes.size(), 2 * 30u + 4);  // 30 per layer, get_rows, then norm, mul, output
    const Tensor& kq = tensor(file, "kq-1");
    EXPECT_EQ(kq.ne, (Shape{16, 16, 8, 1}));  // tokens x tokens per head
    EXPECT_EQ(tensor(file, "blk.1.ffn_down.weight").type, DataType::q4_0);
    EXPECT_EQ(tensor(file, "q-0").nb, (std::array<std::size_t, 4>{4, 512, 64, 8192}));
}

// --clamp: olmo's clamp_kqv, a CLAMP after each of the three projections, read where the
// projection was. Each projection's only consumer is its clamp, so under llama.cpp-0c1e570
// (CLAMP in place) the clamp takes the projection's bytes; under ggml-d99724f2 both are live
// when the clamp is placed, so they cannot share.
TEST(LlamaExample, ClampFollowsEachProjectionAndRunsInPlaceOnlyUnderLlamaCpp) {
    ExampleOptions options;
    options.clamp = true;
    GraphFile file = make_example("llama", options);
    EXPECT_EQ(file.graph.nodes.size(), 34u + 3);
    EXPECT_NE(file.description.find("clamp_kqv=8"), std::string::npos) << file.description;
    for (const char* projection : {"Qcur-0", "Kcur-0", "Vcur-0"}) {
        const Tensor& clamped = tensor(file, std::string(projection) + " (clamp)");
        EXPECT_EQ(clamped.op, Op::CLAMP);
        EXPECT_EQ(clamped.src[0], &tensor(file, projection));
    }
    auto offsets = [&](const AllocatorProfile& profile, const std::string& name) {
        const PlanRun run = run_plan(file, nullptr, profile);
        std::map<std::string, std::size_t> at;
        for (const auto& [id, place] : run.plan.tensors) {
            at[gallocsim::tensor_name(file.context, id)] = place.offset;
        }
        return std::pair{at.at(name), at.at(name + " (clamp)")};
    };
    for (const char* projection : {"Qcur-0", "Kcur-0", "Vcur-0"}) {
        const auto [own, clamp_in_place] = offsets(newest_profile(), projection);
        EXPECT_EQ(own, clamp_in_place) << projection;
        const auto [before, clamp_apart] = offsets(*find_profile("ggml-d99724f2"), projection);
        EXPECT_NE(before, clamp_apart) << projection;
    }
}

// Three linear layers: 64 -> 256 -> 256 -> 64 over 8 rows, relu between, soft_max after.
TEST(MlpExample, IsALinearChain) {
    const GraphFile file = make_example("mlp");
    EXPECT_EQ(names(file.graph.nodes), (std::vector<std::string>{"fc0", "fc0_b", "relu0", "fc1", "fc1_b", "relu1", "fc2",
                                                                 "fc2_b", "probs"}));
    EXPECT_EQ(file.graph.leafs.size(), 7u);  // input and six weights
    EXPECT_EQ(tensor(file, "fc1").ne, (Shape{256, 8, 1, 1}));
    EXPECT_TRUE(tensor(file, "probs").has_flag(TensorFlag::output));
    GraphFile plannable = make_example("mlp");
    const Comparison comparison = compare_planners(plannable, run_ggml_plan(plannable));
    ASSERT_EQ(comparison.arenas.size(), 1u);
    // Each 8 KiB activation lives from its node to the next: two at a time, 16 KiB.
    EXPECT_EQ(comparison.arenas[0].lower_bound.bytes, 16384u);
    EXPECT_EQ(comparison.arenas[0].alternatives.at(0).outcome.plan.size, 16384u);  // greedy by size
    // ggml runs bias and relu in place, yet needs more: the 2 KiB input holds [0, 2048) when
    // fc0 comes, so fc0's chain sits at [2048, 10240), and fc1, allocated while relu0 still
    // lives there, goes on top:
    //
    //   0     2048          10240          18432
    //   [input][fc0 = fc0_b = relu0][fc1 = fc1_b = relu1]
    //   [fc2 = fc2_b = probs) later reuses [0, 2048)
    EXPECT_EQ(comparison.arenas[0].ggml_size, 18432u);
    EXPECT_TRUE(comparison.ggml_violations.empty());
}

// q, k and v are strided views of the fused projection, 64 floats apart in each row.
TEST(Gpt2Example, SplitsTheFusedProjectionIntoViews) {
    const GraphFile file = make_example("gpt2");
    const Tensor& qkv = tensor(file, "qkv_b-0");
    EXPECT_EQ(qkv.ne, (Shape{192, 8, 1, 1}));
    for (const auto& [name, offset] : {std::pair{"Qcur-0", 0}, {"Kcur-0", 256}, {"Vcur-0", 512}}) {
        const Tensor& view = tensor(file, name);
        EXPECT_EQ(view.view_src, &qkv) << name;
        EXPECT_EQ(view.view_offs, static_cast<std::size_t>(offset)) << name;
        EXPECT_EQ(view.ne, (Shape{16, 4, 8, 1})) << name;
        EXPECT_EQ(view.nb, (std::array<std::size_t, 4>{4, 64, 768, 6144})) << name;
    }
    EXPECT_EQ(tensor(file, "KQ_masked-0").op, Op::DIAG_MASK_INF);
    EXPECT_EQ(tensor(file, "ln_1_norm-0").op, Op::NORM);
    EXPECT_TRUE(tensor(file, "logits").has_flag(TensorFlag::output));
    GraphFile plannable = make_example("gpt2");
    EXPECT_TRUE(compare_planners(plannable, run_ggml_plan(plannable)).ggml_violations.empty());
}

TEST(SplitBuffers, InputsAndEmbeddingLookupsGoToTheCpu) {
    ExampleOptions options;
    options.buffers = BufferSetup::split;
    const GraphFile file = make_example("gpt2", options);
    ASSERT_EQ(file.buffer_types.size(), 2u);
    EXPECT_EQ(file.buffer_types[1].name, "CPU");
    for (std::size_t i = 0; i < file.graph.nodes.size(); ++i) {
        const std::string& name = file.graph.nodes[i]->name;
        EXPECT_EQ(file.node_buffer_ids[i], name == "tok_embd" || name == "pos_embd" ? 1 : 0) << name;
    }
}

TEST(Examples, ListNamesEveryExample) {
    std::vector<std::string> listed;
    for (const auto& e : list_examples()) listed.push_back(e.name);
    EXPECT_EQ(listed, (std::vector<std::string>{"seed", "sched-issue", "mlp", "llama", "gpt2"}));
}

TEST(Examples, BadParametersAreRefusedWithTheReason) {
    auto message = [](const std::string& name, const ExampleOptions& options) {
        try {
            make_example(name, options);
        } catch (const GraphFileError& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    ExampleOptions q4;
    q4.ff = 172;
    q4.weights = DataType::q4_0;
    EXPECT_EQ(message("llama", q4), "example \"llama\": ff 172 is not a multiple of q4_0's block size 32 "
                                    "(it is the row length of a weight matrix)");
    ExampleOptions heads;
    heads.heads = 5;
    EXPECT_EQ(message("llama", heads), "example \"llama\": heads (5) does not divide embd (64)");
    EXPECT_EQ(message("mlp", heads), "example \"mlp\": does not take heads");
    ExampleOptions zero;
    zero.tokens = 0;
    EXPECT_EQ(message("gpt2", zero), "example \"gpt2\": tokens must be between 1 and 65536, got 0");
    EXPECT_EQ(message("bert", {}), "unknown example \"bert\" (see `gallocsim examples`)");
}

// An example reads every parameter it takes from the options, each where its own parameter
// struct has it: the options give the same graph file as the struct filled by hand.
TEST(ExampleParameters, EachExampleReadsWhatItIsGiven) {
    ExampleOptions given;
    given.layers = 2;
    given.embd = 128;
    given.heads = 8;
    given.ff = 256;
    given.tokens = 4;
    given.vocab = 100;
    given.outputs = 2;
    given.weights = DataType::q8_0;
    given.buffers = BufferSetup::split;
    given.inplace = given.mask = given.clamp = true;
    EXPECT_EQ(graph_file_to_json(make_example("llama", given)),
              graph_file_to_json(llama_example({.layers = 2, .embd = 128, .heads = 8, .ff = 256, .tokens = 4, .vocab = 100,
                                                .outputs = 2, .weights = DataType::q8_0, .inplace = true, .mask = true,
                                                .clamp = true, .buffers = BufferSetup::split})));
    given.outputs.reset();
    given.inplace = given.mask = given.clamp = false;
    EXPECT_EQ(graph_file_to_json(make_example("gpt2", given)),
              graph_file_to_json(gpt2_example({.layers = 2, .embd = 128, .heads = 8, .ff = 256, .tokens = 4, .vocab = 100,
                                               .weights = DataType::q8_0, .buffers = BufferSetup::split})));
    given.heads.reset();
    given.vocab.reset();
    EXPECT_EQ(graph_file_to_json(make_example("mlp", given)),
              graph_file_to_json(mlp_example(
                  {.layers = 2, .embd = 128, .ff = 256, .tokens = 4, .weights = DataType::q8_0, .buffers = BufferSetup::split})));
}

// A type or a buffer setup is set by its name (as the command line and the dialog have it); a
// name that is none leaves the options as they were, and a count takes no name. is_given says
// which parameters the options give: a switch only when on.
TEST(ExampleParameters, NamedValuesAreSetByName) {
    ExampleOptions options;
    const ExampleParameter& weights = *find_example_parameter("weights");
    EXPECT_TRUE(set_named_value(weights, "q4_0", options));
    EXPECT_EQ(options.weights, DataType::q4_0);
    EXPECT_FALSE(set_named_value(weights, "q9", options));
    EXPECT_EQ(options.weights, DataType::q4_0);
    EXPECT_TRUE(set_named_value(*find_example_parameter("buffers"), "split", options));
    EXPECT_EQ(options.buffers, BufferSetup::split);
    EXPECT_FALSE(set_named_value(*find_example_parameter("buffers"), "gpu", options));
    EXPECT_FALSE(set_named_value(*find_example_parameter("layers"), "2", options));
    EXPECT_EQ(find_example_parameter("--layers"), nullptr);  // names are spelled without the dashes
    options.mask = true;
    std::vector<std::string> given;
    for (const ExampleParameter& parameter : example_parameters()) {
        if (is_given(parameter, options)) {
            given.emplace_back(parameter.name);
        }
    }
    EXPECT_EQ(given, (std::vector<std::string>{"weights", "buffers", "mask"}));
}

// An exported example reads back as the same graph with the same plan.
TEST(Examples, RoundTripThroughTheGraphFormat) {
    for (const std::string name : {"seed", "sched-issue", "mlp", "llama", "gpt2"}) {
        GraphFile built = make_example(name);
        GraphFile reread = parse_graph_file(graph_file_to_json(built), name);
        expect_same_graph(built, reread);
        EXPECT_EQ(run_plan(reread).plan.tensors, run_plan(built).plan.tensors) << name;
    }
}

} // namespace
} // namespace gallocsim
