// Policy files (docs/policies.md): read with errors that name the file, the JSON path and the
// problem; every rule of a profile settable; the built-in states, written out as files,
// plan exactly as the states do on the golden corpus and the real-size captures.
#include "simulator/model/corpus.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/plan.hpp"
#include "simulator/model/policy_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {
namespace {

namespace fs = std::filesystem;
using ::testing::StartsWith;

std::unique_ptr<const Policy> policy(const std::string& rules, const std::string& base = "llama.cpp-0c1e570") {
    return parse_policy(R"({"format": "gallocsim-policy/1", "name": "p", "base": ")" + base + R"(", "rules": )" + rules + "}",
                        "p.json");
}

std::string error_of(const std::string& text) {
    try {
        parse_policy(text, "p.json");
    } catch (const GraphFileError& error) {
        return error.what();
    }
    return "no error";
}

TEST(PolicyFile, AFileWithoutRulesPlansByItsBase) {
    const auto p = parse_policy(R"({"format": "gallocsim-policy/1", "name": "same", "base": "ggml-f54604ef"})", "same.json");
    EXPECT_EQ(p->name(), "same");
    EXPECT_EQ(&p->base(), find_profile("ggml-f54604ef"));
    EXPECT_TRUE(rule_differences(p->base(), p->profile()).empty());
    EXPECT_EQ(p->profile().name, "same");
    EXPECT_FALSE(is_builtin_profile(p->profile()));
}

// A base may be named as --ggml-version names a state: a ggml release that carries one, a
// llama.cpp build, a commit (the values are version_map_test's).
TEST(PolicyFile, TheBaseIsNamedAsTheVersionOptionNamesAState) {
    const auto named = [](const std::string& base) {
        return &parse_policy(R"({"format": "gallocsim-policy/1", "name": "p", "base": ")" + base + "\"}", "p.json")->base();
    };
    EXPECT_EQ(named("0.13.1"), find_profile("ggml-0a2b6b20"));
    EXPECT_EQ(named("b6568"), find_profile("ggml-254ea3e5"));
    EXPECT_EQ(named("f2a789e3"), find_profile("ggml-254ea3e5"));
    EXPECT_EQ(parse_policy(R"({"format": "gallocsim-policy/1", "name": "p", "base": "0.13.1"})", "p.json")->description(),
              "ggml-0a2b6b20 with the rules the file changes");
}

TEST(PolicyFile, EachRuleIsReadIntoTheProfile) {
    EXPECT_EQ(policy(R"({"block_fit": "first"})")->profile().block_fit, BlockFit::first);
    EXPECT_EQ(policy(R"({"block_fit": "largest"})")->profile().block_fit, BlockFit::largest);
    EXPECT_EQ(policy(R"({"fit_ties": "first"})")->profile().fit_ties, FitTies::first);
    EXPECT_TRUE(policy(R"({"inplace_through_views": true})")->profile().inplace_through_views);
    EXPECT_FALSE(policy(R"({"chunks": false})")->profile().chunks);
    EXPECT_EQ(policy(R"({"tail_choice": "first_that_fits"})")->profile().tail_choice, TailChoice::first_that_fits);
    EXPECT_EQ(policy(R"({"reallocation": "when_total_grows"})")->profile().reallocation, Reallocation::when_total_grows);
    EXPECT_EQ(policy(R"({"free_extra_space": "kept"})")->profile().free_extra_space, ExtraSpace::kept);
    EXPECT_FALSE(policy(R"({"external_buffer_is_allocated": false})")->profile().external_buffer_is_allocated);
    EXPECT_FALSE(policy(R"({"has_reserve_n_size": false})")->profile().has_reserve_n_size);
    EXPECT_FALSE(policy(R"({"replans_when_data_dropped": false})")->profile().replans_when_data_dropped);
    EXPECT_FALSE(policy(R"({"empty_buffers_are_dummies": false})")->profile().empty_buffers_are_dummies);
}

// llama.cpp-0c1e570 is ggml-0a2b6b20 plus CLAMP in place (profile.cpp's history), so the newest
// state without CLAMP has 0a2b6b20's op set, and 0a2b6b20 with CLAMP added has the newest's.
TEST(PolicyFile, InPlaceOpsAreAddedAndRemovedFromTheBasesSet) {
    const AllocatorProfile& older = *find_profile("ggml-0a2b6b20");
    EXPECT_EQ(policy(R"({"inplace_ops": {"remove": ["CLAMP"]}})")->profile().inplace_ops, older.inplace_ops);
    EXPECT_EQ(policy(R"({"inplace_ops": {"add": ["CLAMP"]}})", "ggml-0a2b6b20")->profile().inplace_ops,
              newest_profile().inplace_ops);
    // A whole list replaces the set.
    const AllocatorProfile only_add = policy(R"({"inplace_ops": ["ADD"]})")->profile();
    EXPECT_TRUE(only_add.can_inplace(Op::ADD));
    EXPECT_FALSE(only_add.can_inplace(Op::MUL));
    EXPECT_EQ(rule_differences_text(older, newest_profile()), "inplace_ops +CLAMP");
}

TEST(PolicyFile, ErrorsNameTheFileThePathAndTheProblem) {
    const std::string head = R"({"format": "gallocsim-policy/1", "name": "p", "base": "llama.cpp-0c1e570", )";
    EXPECT_EQ(error_of(head + R"("rules": {"block_fit": "worst"}})"),
              "p.json: $.rules.block_fit: must be one of best, first, largest, got \"worst\"");
    EXPECT_EQ(error_of(head + R"("rules": {"inplace_ops": {"add": ["ADD", "FOO"]}}})"),
              "p.json: $.rules.inplace_ops.add[1]: \"FOO\" is not a ggml op name (ADD, MUL_MAT, SOFT_MAX, ...)");
    EXPECT_EQ(error_of(head + R"("rules": {"chunks": "yes"}})"),
              "p.json: $.rules.chunks: must be true or false, got the string \"yes\"");
    EXPECT_THAT(error_of(head + R"("rules": {"bestfit": "first"}})"),
                StartsWith("p.json: $.rules: unknown rule \"bestfit\" (the rules: inplace_ops, block_fit, "));
    EXPECT_EQ(error_of(head + R"("extra": 1})"), "p.json: $: unknown field \"extra\"");
    EXPECT_EQ(error_of(R"({"format": "gallocsim-policy/2", "name": "p", "base": "x"})"),
              "p.json: $.format: must be \"gallocsim-policy/1\", got \"gallocsim-policy/2\"");
    EXPECT_EQ(error_of(R"({"format": "gallocsim-policy/1", "base": "x"})"), "p.json: $: missing required field \"name\"");
    EXPECT_THAT(error_of(R"({"format": "gallocsim-policy/1", "name": "p", "base": "ggml-1234"})"),
                StartsWith("p.json: $.base: \"ggml-1234\": unknown version; known: a state (llama.cpp-0c1e570, "));
    // The base is read by --ggml-version's resolver: a ggml version that could be several states is refused alike.
    EXPECT_EQ(error_of(R"({"format": "gallocsim-policy/1", "name": "p", "base": "0.9.4"})"),
              "p.json: $.base: \"0.9.4\": ggml 0.9.4 could be any of ggml-254ea3e5 … ggml-0a2b6b20; name one");
    EXPECT_EQ(error_of(R"({"format": "gallocsim-policy/1", "name": "", "base": "ggml-f54604ef"})"),
              "p.json: $.name: must be a non-empty name of printable characters");
    EXPECT_EQ(error_of(std::string("{\"a\"\0", 5)), "p.json: a NUL byte at offset 4: not a JSON text (a binary file?)");
    EXPECT_EQ(error_of("[1, 2]"), "p.json: $: must be an object, got an array");
    EXPECT_THAT(error_of("{"), StartsWith("p.json: invalid JSON: parse error at line 1, column 2"));
}

// Which ops a policy may run in place (docs/policies.md, "Ops a backend can run in place").
// The expected values come from reading ggml's CPU kernels, not from gallocsim's table: MUL_MAT
// computes each result element from a whole row of src0 and a column of src1, so no result can
// overwrite a source; GLU's kernels compute y[i] from x[i] and g[i] alone, row by row, so it can.
TEST(PolicyFile, AnOpNoKernelCanRunInPlaceIsRefusedWithTheReason) {
    const std::string head = R"({"format": "gallocsim-policy/1", "name": "mm", "base": "llama.cpp-0c1e570", )";
    EXPECT_EQ(error_of(head + R"("rules": {"inplace_ops": {"add": ["GLU", "MUL_MAT"]}}})"),
              "p.json: $.rules.inplace_ops.add[1]: MUL_MAT cannot run in place: MUL_MAT's kernel reads a whole row and "
              "column of its sources for each element it writes, so a result written over a source destroys values "
              "later elements still read. A policy that runs it in place anyway says \"unsafe\": true, and every "
              "report marks it");
    // The whole-set form is judged the same way, op by op.
    EXPECT_THAT(error_of(head + R"("rules": {"inplace_ops": ["ADD", "GET_ROWS"]}})"),
                StartsWith("p.json: $.rules.inplace_ops[1]: GET_ROWS cannot run in place: GET_ROWS's kernel copies"));
    EXPECT_THAT(error_of(head + R"("rules": {"inplace_ops": {"add": ["CPY"]}}})"),
                StartsWith("p.json: $.rules.inplace_ops.add[0]: CPY cannot run in place: "));
    EXPECT_THAT(error_of(head + R"("rules": {"inplace_ops": {"add": ["CONT"]}}})"),
                StartsWith("p.json: $.rules.inplace_ops.add[0]: CONT cannot run in place: "));
}

// With "unsafe": true the same file is read, and its name says so wherever a report names it.
TEST(PolicyFile, AnUnsafePolicyIsAcceptedAndMarked) {
    const auto p = parse_policy(R"({"format": "gallocsim-policy/1", "name": "mm", "base": "llama.cpp-0c1e570", "unsafe": true,
                                    "rules": {"inplace_ops": {"add": ["MUL_MAT"]}}})",
                                "mm.json");
    EXPECT_TRUE(p->profile().can_inplace(Op::MUL_MAT));
    EXPECT_TRUE(p->profile().unsafe);
    EXPECT_EQ(p->name(), "mm");
    EXPECT_EQ(p->profile().name, "mm (unsafe)");
    EXPECT_EQ(unsafe_ops_text(p->profile()), "MUL_MAT");
    // Written out, it keeps "unsafe", so the file it writes reads back.
    const auto again = parse_policy(policy_file_text(p->profile(), "mm", "again"), "again.json");
    EXPECT_TRUE(again->profile().unsafe);
    // Written by its profile's name (as the GUI's session writes it), the mark is not doubled.
    EXPECT_EQ(parse_policy(policy_file_text(p->profile(), p->profile().name, "again"), "again.json")->profile().name,
              "mm (unsafe)");
    // No upstream state is unsafe: every op of their lists is safe by upstream's own word.
    for (const AllocatorProfile& state : allocator_profiles()) {
        EXPECT_FALSE(state.unsafe) << state.name;
        EXPECT_EQ(unsafe_ops_text(state), "") << state.name;
    }
    // Claiming "unsafe" for rules every kernel can run contradicts the rules.
    EXPECT_EQ(error_of(R"({"format": "gallocsim-policy/1", "name": "g", "base": "llama.cpp-0c1e570", "unsafe": true,
                         "rules": {"inplace_ops": {"add": ["GLU"]}}})"),
              "p.json: $.unsafe: is true, but every op the policy runs in place has a ggml kernel that can run over its "
              "source; drop \"unsafe\"");
}

// A safe addition (GLU: see the test above for why its kernel can run in place) is read and not marked.
TEST(PolicyFile, AnOpWhoseKernelRunsInPlaceMayBeAdded) {
    const auto p = policy(R"({"inplace_ops": {"add": ["GLU"]}})");
    EXPECT_TRUE(p->profile().can_inplace(Op::GLU));
    EXPECT_FALSE(p->profile().unsafe);
    EXPECT_EQ(p->profile().name, "p");
}

// The same op added and removed, or named twice in one list, says two things at once.
TEST(PolicyFile, ContradictoryRulesAreRefused) {
    const std::string head = R"({"format": "gallocsim-policy/1", "name": "p", "base": "llama.cpp-0c1e570", )";
    EXPECT_EQ(error_of(head + R"("rules": {"inplace_ops": {"add": ["GLU"], "remove": ["ADD", "GLU"]}}})"),
              "p.json: $.rules.inplace_ops.remove[1]: GLU is both added and removed; name it in one list");
    EXPECT_EQ(error_of(head + R"("rules": {"inplace_ops": {"add": ["GLU", "GLU"]}}})"),
              "p.json: $.rules.inplace_ops.add[1]: GLU is given twice");
    EXPECT_EQ(error_of(head + R"("rules": {"inplace_ops": ["ADD", "MUL", "ADD"]}})"),
              "p.json: $.rules.inplace_ops[2]: ADD is given twice");
}

// A policy inside a GUI session (at "$.policy") is named by one path from the session's root:
// the expected text is ErrorsNameTheFileThePathAndTheProblem's block_fit message with "$" replaced by "$.policy"
// and the file by the session's, which is also the policy's file.
TEST(PolicyFile, APolicyInsideADocumentIsNamedByOnePath) {
    try {
        parse_policy(R"({"format": "gallocsim-policy/1", "name": "p", "base": "llama.cpp-0c1e570", "rules": {"block_fit": "worst"}})",
                     "s.json", "$.policy");
        ADD_FAILURE() << "read without error";
    } catch (const GraphFileError& error) {
        EXPECT_STREQ(error.what(), "s.json: $.policy.rules.block_fit: must be one of best, first, largest, got \"worst\"");
    }
    EXPECT_EQ(parse_policy(R"({"format": "gallocsim-policy/1", "name": "p", "base": "llama.cpp-0c1e570"})", "s.json", "$.policy")->file(),
              "s.json");
}

// Every state written out and read back has the state's rules, rule by rule.
TEST(PolicyFile, EveryStateExportedReadsBackWithItsRules) {
    for (const AllocatorProfile& state : allocator_profiles()) {
        const auto read = parse_policy(policy_file_text(state, state.name, "exported"), "exported.json");
        EXPECT_EQ(&read->base(), &state);
        EXPECT_EQ(rule_differences_text(state, read->profile()), "no rule differs") << state.name;
    }
}

// A policy written over the newest state keeps every rule it changed.
TEST(PolicyFile, APolicyRewrittenInFullKeepsItsRules) {
    const auto p = policy(R"({"block_fit": "largest", "inplace_ops": {"remove": ["ROPE"]}, "chunks": false})", "ggml-9dea367c");
    const auto again = parse_policy(policy_file_text(p->profile(), "p2", "again"), "p2.json");
    EXPECT_EQ(&again->base(), &newest_profile());
    EXPECT_EQ(rule_differences_text(p->profile(), again->profile()), "no rule differs");
}

std::vector<CorpusGraph> corpus() {
    std::vector<CorpusGraph> graphs;
    const std::string paths[] = {GALLOCSIM_SHARED_DIR "/golden", GALLOCSIM_TEST_DATA_DIR "/captures/llama-3.1-8b-c4096-u512",
                                 GALLOCSIM_TEST_DATA_DIR "/captures/llama-3.1-8b-c4096-u512-fa"};
    const CorpusInputs inputs = find_corpus_inputs(paths);
    EXPECT_TRUE(inputs.problems.empty());
    for (const fs::path& file : inputs.files) {
        graphs.push_back({file.string(), load_graph_file(file), file});
    }
    for (const fs::path& capture : inputs.captures) {
        for (CorpusGraph& graph : capture_graphs(capture)) {
            graphs.push_back(std::move(graph));
        }
    }
    return graphs;
}

// The issue's promise: each built-in state, as a file, makes exactly the state's plans on the
// golden corpus (200 graphs) and the real-size captures (4 graphs): offsets, chunks, sizes.
TEST(PolicyFile, EveryStateAsAFilePlansTheGoldenCorpusAndTheRealCapturesExactlyAsTheState) {
    const std::vector<CorpusGraph> graphs = corpus();
    ASSERT_EQ(graphs.size(), 204u);
    for (const AllocatorProfile& state : allocator_profiles()) {
        const auto file = parse_policy(policy_file_text(state, "as-file", "exported"), "as-file.json");
        for (const CorpusGraph& graph : graphs) {
            const PlanRun by_state = run_plan(graph.file, nullptr, state);
            const PlanRun by_file = run_plan(graph.file, nullptr, file->profile());
            ASSERT_EQ(by_state.error, by_file.error) << state.name << " " << graph.label;
            ASSERT_EQ(by_state.plan.buffer_sizes, by_file.plan.buffer_sizes) << state.name << " " << graph.label;
            ASSERT_EQ(by_state.plan.chunk_sizes, by_file.plan.chunk_sizes) << state.name << " " << graph.label;
            ASSERT_EQ(by_state.plan.tensors, by_file.plan.tensors) << state.name << " " << graph.label;
        }
    }
}

// `gallocsim versions`' table of rules by state is read off the policy rule table. Its rows
// must be exactly the rules some upstream state changes: worked out by hand from
// reference/profile.cpp, the fields kSteps' changes name (empty_buffers_are_dummies, inplace_ops,
// replans_when_data_dropped, chunks, reallocation, free_extra_space, tail_choice,
// external_buffer_is_allocated) plus has_reserve_n_size, which 0a2b6b20's step sets beside
// external_buffer_is_allocated; block_fit, fit_ties and inplace_through_views are a policy's
// alone. The rows keep the policy table's order, and the labels and words fit the table's
// columns (28 characters for a label, 9 for a cell, one blank at least after each).
TEST(PolicyFile, TheStateRowsAreTheRulesUpstreamStatesChange) {
    std::vector<std::string> rows;
    for (const StateRuleRow& row : state_rule_rows()) {
        rows.emplace_back(row.rule);
        EXPECT_LT(row.label.size(), 28u) << row.rule;
        for (const AllocatorProfile& state : allocator_profiles()) {
            const std::string word = row.word(state);
            EXPECT_FALSE(word.empty()) << row.rule << " " << state.name;
            EXPECT_LT(word.size(), 9u) << row.rule << " " << state.name;
        }
    }
    EXPECT_EQ(rows, (std::vector<std::string>{"inplace_ops", "chunks", "tail_choice", "reallocation", "free_extra_space",
                                              "external_buffer_is_allocated", "has_reserve_n_size",
                                              "replans_when_data_dropped", "empty_buffers_are_dummies"}));
    // The same set another way: the rules on which some state differs from the seed era (the
    // history only ever moves away from it, so every changed rule differs from it somewhere).
    std::set<std::string> changed;
    for (const AllocatorProfile& state : allocator_profiles()) {
        for (const RuleDifference& d : rule_differences(seed_era_profile(), state)) {
            changed.insert(d.rule);
        }
    }
    EXPECT_EQ(changed, std::set<std::string>(rows.begin(), rows.end()));
}

// Each row's word in three states, worked out from reference/profile.cpp's history: the seed
// era (kSeedEra: 15 in-place ops, one buffer, every later rule off); 254ea3e5 (chunks, but the
// first fitting tail until 058128a6; 15 + 4 backward ops + ADD_ID = 20 in place; replans since
// 1e04f6ae, dummies since da649f70); the newest (FILL and CLAMP on top: 22; every rule on).
TEST(PolicyFile, TheStateRowsWordEachRuleAsVersionsTabulatesIt) {
    const auto words = [](const AllocatorProfile& state) {
        std::vector<std::string> list;
        for (const StateRuleRow& row : state_rule_rows()) {
            list.push_back(row.word(state));
        }
        return list;
    };
    using Words = std::vector<std::string>;
    EXPECT_EQ(words(seed_era_profile()), (Words{"15", "no", "-", "total", "kept", "no", "no", "no", "no"}));
    EXPECT_EQ(words(*find_profile("ggml-254ea3e5")), (Words{"20", "yes", "first", "total", "kept", "no", "no", "yes", "yes"}));
    EXPECT_EQ(words(newest_profile()), (Words{"22", "yes", "reuse", "chunk", "aligned", "yes", "yes", "yes", "yes"}));
    // A tail choice without chunks does not act: a policy that sets one shows "-" all the same.
    const auto p = policy(R"({"chunks": false, "tail_choice": "reuse_factor"})");
    EXPECT_EQ(words(p->profile())[2], "-");
    std::vector<std::string_view> labels;
    for (const StateRuleRow& row : state_rule_rows()) {
        labels.push_back(row.label);
    }
    EXPECT_EQ(labels, (std::vector<std::string_view>{"in-place ops (count)", "chunks", "tail choice", "reallocation",
                                                     "free_extra_space", "external buffer = allocated", "reserve_n_size",
                                                     "replans on dropped data", "0-byte buffers are dummies"}));
}

TEST(PolicyFile, AnArgumentLooksLikeAPolicyFileByItsPathOrName) {
    EXPECT_TRUE(looks_like_policy_file("policies/first.json"));
    EXPECT_TRUE(looks_like_policy_file("first.json"));
    EXPECT_FALSE(looks_like_policy_file("ggml-f54604ef"));
    EXPECT_FALSE(looks_like_policy_file("0.9.4"));
}

} // namespace
} // namespace gallocsim
