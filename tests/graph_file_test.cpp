// Graph files (simulator/model/graph_file.hpp): every class of bad input is refused with a
// message that names the file, the JSON path or tensor, and the problem; saving follows
// the format's conventions; every golden file survives save -> load unchanged.
#include "simulator/model/graph_file.hpp"
#include "simulator/model/buffer_settings.hpp"
#include "simulator/model/plan.hpp"
#include "tests/golden_files.hpp"
#include "tests/test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {
namespace {

using nlohmann::json;
using test_support::read_text;

// A file with one CPU buffer type and the given tensors, leafs and nodes; `more` adds
// top-level fields (starting with a comma).
std::string graph_doc(std::string_view tensors, std::string_view leafs = "[]", std::string_view nodes = "[]",
                      std::string_view more = "") {
    std::string doc = R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}], "tensors": )";
    doc += tensors;
    doc += R"(, "leafs": )";
    doc += leafs;
    doc += R"(, "nodes": )";
    doc += nodes;
    doc += more;
    return doc + "}";
}

// a (leaf) and b = a + a (node): the smallest useful graph.
constexpr std::string_view kTwoTensors =
    R"([{"name": "a", "ne": [4]}, {"name": "b", "ne": [4], "op": "ADD", "src": ["a", "a"]}])";

// The message parse_graph_file throws for `text`, read as file g.json.
std::string error_of(std::string_view text) {
    try {
        parse_graph_file(text, "g.json");
    } catch (const GraphFileError& error) {
        return error.what();
    }
    ADD_FAILURE() << "loaded without error:\n" << text;
    return {};
}

TEST(GraphFileErrors, InvalidJsonSaysWhere) {
    EXPECT_EQ(error_of("{\n  \"format\": \"ggml-graph/1\",\n  \"tensors\": [\n}"),
              "g.json: invalid JSON: parse error at line 4, column 1: syntax error while parsing value - unexpected "
              "'}'; expected '[', '{', or a literal");
    EXPECT_EQ(error_of(""),
              "g.json: invalid JSON: parse error at line 1, column 1: syntax error while parsing value - unexpected "
              "end of input; expected '[', '{', or a literal");
}

// A UTF-8 byte order mark (EF BB BF), as some editors write first: named, not taken for a comma.
TEST(GraphFileErrors, AByteOrderMarkIsNamed) {
    EXPECT_EQ(error_of("\xEF\xBB\xBF" + graph_doc(kTwoTensors)),
              "g.json: starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON does not allow: save the file as "
              "UTF-8 without it");
}

// A file of zeros is no JSON; it is not "unexpected end of input" either (nlohmann takes a NUL
// for the end of the text): the first NUL's offset is named.
TEST(GraphFileErrors, NulBytesAreNamedNotTakenForTheEnd) {
    EXPECT_EQ(error_of(std::string(1000, '\0')), "g.json: a NUL byte at offset 0: not a JSON text (a binary file?)");
    EXPECT_EQ(error_of(std::string("{\"format\"\0", 10)), "g.json: a NUL byte at offset 9: not a JSON text (a binary file?)");
}

TEST(GraphFileErrors, MissingFields) {
    EXPECT_EQ(error_of(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}]})"),
              "g.json: $: missing required field \"tensors\"");
    EXPECT_EQ(error_of(R"({"buffer_types": []})"), "g.json: $: missing required field \"format\"");
    EXPECT_EQ(error_of(graph_doc(R"([{"ne": [4]}])")), "g.json: $.tensors[0]: missing required field \"name\"");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a"}])")), "g.json: $.tensors[0] (tensor 'a'): missing required field \"ne\"");
    EXPECT_EQ(error_of(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU"}], "tensors": [], "leafs": [], "nodes": []})"),
              "g.json: $.buffer_types[0]: missing required field \"alignment\"");
    EXPECT_EQ(error_of(graph_doc("[]", "[]", "[]", R"(, "expected": {"alloc_graph": true})")),
              "g.json: $.expected: missing required field \"reserve\"");
}

TEST(GraphFileErrors, WrongJsonTypes) {
    EXPECT_EQ(error_of("[1, 2]"), "g.json: $: must be an object, got an array");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": "4"}])")),
              "g.json: $.tensors[0].ne (tensor 'a'): must be an array, got the string \"4\"");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [2.5]}])")),
              "g.json: $.tensors[0].ne[0] (tensor 'a'): must be an integer, got the number 2.5");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4], "data": 1}])")),
              "g.json: $.tensors[0].data (tensor 'a'): must be true or false, got the number 1");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": 3, "ne": [4]}])")), "g.json: $.tensors[0].name: must be a string, got the number 3");
    EXPECT_EQ(error_of(graph_doc("[5]")), "g.json: $.tensors[0]: must be an object, got the number 5");
    EXPECT_EQ(error_of(graph_doc("[]", "{}")), "g.json: $.leafs: must be an array, got an object");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4], "flags": "input"}])")),
              "g.json: $.tensors[0].flags (tensor 'a'): must be an array, got the string \"input\"");
    EXPECT_EQ(error_of(R"({"format": "ggml-graph/3"})"),
              "g.json: $.format: unsupported format \"ggml-graph/3\" (expected \"ggml-graph/1\" or \"ggml-graph/2\")");
}

// A graph inside a larger document (a GUI session keeps it at "$.graph") is named by one JSON
// path from that document's root, not two glued ("s.json: $.graph: $.tensors[0].ne"). The
// expected texts are WrongJsonTypes' and AlignmentsWhoseSumsWouldWrapAreRefused' with "$"
// replaced by "$.graph" and the file by the session's; the name of a nameless graph is the
// session file's stem, as for a graph file of its own.
TEST(GraphFileErrors, AGraphInsideADocumentIsNamedByOnePath) {
    auto nested_error = [](std::string_view text) {
        try {
            parse_graph_file(text, "s.json", "$.graph");
        } catch (const GraphFileError& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(nested_error(graph_doc(R"([{"name": "n", "ne": "4"}])")),
              "s.json: $.graph.tensors[0].ne (tensor 'n'): must be an array, got the string \"4\"");
    EXPECT_EQ(nested_error("[1, 2]"), "s.json: $.graph: must be an object, got an array");
    EXPECT_EQ(nested_error(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 9223372036854775808}], )"
                           R"("tensors": [{"name": "a", "ne": [4]}], "leafs": ["a"], "nodes": []})"),
              "s.json: $.graph: the tensors need more than 2^62 bytes (4 EiB) with no reuse, each rounded up to the "
              "alignment 9223372036854775808; plans this large are not computed (their sums would not be exact)");
    EXPECT_EQ(parse_graph_file(graph_doc(std::string(kTwoTensors), R"(["a"])", R"(["b"])"), "dir/s.json", "$.graph").name, "s");
}

TEST(GraphFileErrors, UnknownNames) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "type": "f33", "ne": [4]}])")),
              "g.json: $.tensors[0].type (tensor 'a'): unknown type \"f33\"");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4], "op": "ADDD"}])")),
              "g.json: $.tensors[0].op (tensor 'a'): unknown op \"ADDD\"");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4], "flags": ["input", "inputt"]}])")),
              "g.json: $.tensors[0].flags[1] (tensor 'a'): unknown flag \"inputt\" (expected input, output, param, loss or compute)");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4], "shape": [4]}])")),
              "g.json: $.tensors[0] (tensor 'a'): unknown field \"shape\"");
    EXPECT_EQ(error_of(graph_doc("[]", "[]", "[]", R"(, "extra": 1)")), "g.json: $: unknown field \"extra\"");
    EXPECT_EQ(error_of(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "GPU", "alignment": 32, "alloc_size": "rocm"}]})"),
              "g.json: $.buffer_types[0].alloc_size: unknown rule \"rocm\" (expected \"nbytes\" or \"cuda\")");
    EXPECT_EQ(error_of(graph_doc("[]", "[]", "[]", R"(, "buffers": ["GPU"])")), "g.json: $.buffers[0]: unknown buffer type \"GPU\"");
}

TEST(GraphFileErrors, DuplicateNames) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4]}, {"name": "a", "ne": [2]}])")),
              "g.json: $.tensors[1].name (tensor 'a'): duplicate tensor name");
    EXPECT_EQ(error_of(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}, {"name": "CPU", "alignment": 64}]})"),
              "g.json: $.buffer_types[1].name: duplicate buffer type name \"CPU\"");
    EXPECT_EQ(error_of(graph_doc(kTwoTensors, R"(["a"])", R"(["b", "b"])")),
              "g.json: $.nodes[1] (tensor 'b'): listed twice in leafs/nodes");
}

TEST(GraphFileErrors, UnknownSourceNames) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4]}, {"name": "b", "ne": [4], "op": "ADD", "src": ["a", "zz"]}])")),
              "g.json: $.tensors[1].src[1] (tensor 'b'): unknown tensor \"zz\"");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "v", "ne": [4], "view_src": "zz"}])")),
              "g.json: $.tensors[0].view_src (tensor 'v'): unknown tensor \"zz\"");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4]}])", R"(["zz"])")), "g.json: $.leafs[0]: unknown tensor \"zz\"");
    // Known, but not in the graph.
    EXPECT_EQ(error_of(graph_doc(kTwoTensors, "[]", R"(["b"])")),
              "g.json: $.nodes[0] (tensor 'b'): source 'a' is neither a leaf nor a node of the graph");
}

TEST(GraphFileErrors, CyclesAreRefused) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4], "op": "ADD", "src": ["b"]},
                                     {"name": "b", "ne": [4], "op": "ADD", "src": ["a"]}])",
                                 "[]", R"(["a", "b"])")),
              "g.json: $.tensors (tensor 'a'): cycle: 'a' depends on itself through 'b'");
}

// ggml_cast makes a CPY whose destination src[1] is the tensor itself: legal.
TEST(GraphFileErrors, SelfReferenceIsLegal) {
    GraphFile file = parse_graph_file(
        graph_doc(R"([{"name": "a", "ne": [4]}, {"name": "c", "type": "f16", "ne": [4], "op": "CPY", "src": ["a", "c"]}])",
                  R"(["a"])", R"(["c"])"),
        "g.json");
    const Tensor& c = *file.context.find("c");
    EXPECT_EQ(c.src[0], file.context.find("a"));
    EXPECT_EQ(c.src[1], &c);
}

// ggml's scheduler places a view that keeps a split's input alive before the input's own node
// (tests/data/captures/two-backends): ggml plans such a graph, so the loader takes it.
TEST(GraphFile, SourceComputedLaterIsLegal) {
    GraphFile file = parse_graph_file(
        graph_doc(R"([{"name": "a", "ne": [4]}, {"name": "b", "ne": [4], "op": "SQR", "src": ["a"]},
                     {"name": "c", "ne": [4], "op": "SQR", "src": ["b"]}])",
                  R"(["a"])", R"(["c", "b"])"),
        "g.json");
    const Tensor& c = *file.context.find("c");
    EXPECT_EQ(c.src[0], file.context.find("b"));
    EXPECT_EQ(file.graph.nodes[1], file.context.find("b"));
}

// An in-place result that views a node computed only after it (found by fuzz_graph_file): the
// view would be given no memory, since its root has none yet when alloc_graph reaches it.
TEST(GraphFileErrors, ViewOfANodeComputedLater) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4]}, {"name": "b", "ne": [4], "op": "SQR", "src": ["a"]},
                                     {"name": "c", "ne": [4], "op": "SCALE", "src": ["a"], "view_src": "b"}])",
                                 R"(["a"])", R"(["c", "b"])")),
              "g.json: $.nodes[0] (tensor 'c'): views 'b' before it is computed (node 1): ggml would leave it without memory");
}

TEST(GraphFileErrors, AtMostTenSources) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4]},
                                     {"name": "b", "ne": [4], "op": "CUSTOM", "src": ["a","a","a","a","a","a","a","a","a","a","a"]}])")),
              "g.json: $.tensors[1].src (tensor 'b'): has 11 entries; at most 10 (GGML_MAX_SRC)");
}

TEST(GraphFileErrors, ViewsMustLieInsideTheirRoot) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4]}, {"name": "v", "ne": [2], "op": "VIEW", "src": ["a"],
                                     "view_src": "a", "view_offs": 12}])")),
              "g.json: $.tensors[1].view_offs (tensor 'v'): view of 8 bytes at offset 12 reaches past its root 'a' of 16 bytes");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4], "view_offs": 4}])")),
              "g.json: $.tensors[0].view_offs (tensor 'a'): is set but the tensor has no view_src");
}

TEST(GraphFileErrors, ViewSrcMustNameTheRoot) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4]}, {"name": "v", "ne": [4], "view_src": "a"},
                                     {"name": "w", "ne": [2], "view_src": "v"}])")),
              "g.json: $.tensors[2].view_src (tensor 'w'): names 'v', which is itself a view of 'a'; view_src must name the root");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4], "view_src": "a"}])")),
              "g.json: $.tensors[0].view_src (tensor 'a'): a tensor cannot view itself");
}

TEST(GraphFileErrors, BadShapes) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4, -1]}])")),
              "g.json: $.tensors[0].ne[1] (tensor 'a'): must be >= 0, got -1");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": []}])")),
              "g.json: $.tensors[0].ne (tensor 'a'): must have 1 to 4 element counts, got 0");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [1, 1, 1, 1, 1]}])")),
              "g.json: $.tensors[0].ne (tensor 'a'): must have 1 to 4 element counts, got 5");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "q", "type": "q4_0", "ne": [33]}])")),
              "g.json: $.tensors[0].ne (tensor 'q'): ne[0] = 33 is not a multiple of q4_0's block size 32");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4], "nb": [4, 16]}])")),
              "g.json: $.tensors[0].nb (tensor 'a'): must have 4 strides, got 2");
}

// Sizes are kept below SIZE_MAX/4 so that every later sum stays exact.
TEST(GraphFileErrors, OverflowingSizes) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [140737488355328, 140737488355328]}])")),
              "g.json: $.tensors[0].ne (tensor 'a'): the tensor's size overflows (more than 4611686018427387903 bytes)");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [562949953421312]}])")),
              "g.json: $.tensors[0].ne (tensor 'a'): element count too large");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [9223372036854775808]}])")),
              "g.json: $.tensors[0].ne[0] (tensor 'a'): is too large: 9223372036854775808");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4, 2], "nb": [4, 9223372036854775808, 0, 0]}])")),
              "g.json: $.tensors[0].nb[1] (tensor 'a'): stride too large: 9223372036854775808");
}

// JSON leaves the meaning of a field written twice open (nlohmann kept the last, simdjson finds
// the first): the reader refuses it rather than guess. The same for a tensor the expected plan
// places twice.
TEST(GraphFileErrors, AFieldWrittenTwiceIsRefused) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4], "ne": [8]}])")),
              "g.json: $.tensors[0] (tensor 'a'): field \"ne\" given twice");
    EXPECT_EQ(error_of(R"({"format": "ggml-graph/1", "format": "ggml-graph/1", "buffer_types": [], "tensors": [], "leafs": [], "nodes": []})"),
              "g.json: $: field \"format\" given twice");
    const std::string placed_twice =
        R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}], "tensors": [{"name": "a", "ne": [4]}],
            "leafs": ["a"], "nodes": [], "expected": {"reserve": true, "alloc_graph": true, "buffer_sizes": [32],
            "chunk_sizes": [[32]], "tensors": {"a": {"buffer": 0, "chunk": 0, "offset": 0}, "a": {"buffer": 0, "chunk": 0, "offset": 0}}}})";
    EXPECT_EQ(error_of(placed_twice), "g.json: $.expected.tensors.a (tensor 'a'): placed twice");
}

// A text nested deeper than the reader's 1024 levels is refused with the reason (nlohmann, which
// names where other refusals happen, would take it, so the reader's own words are said).
TEST(GraphFileErrors, NestingPastTheReadersDepthIsNamed) {
    const std::string deep = R"({"format": "ggml-graph/1", "description": )" + std::string(2000, '[') + std::string(2000, ']') + "}";
    EXPECT_EQ(error_of(deep), "g.json: invalid JSON: The JSON document was too deep (too many nested objects and arrays)");
}

// An integer past 64 bits is read as the nearest double so that the field can say it is too
// large; digits inside a string are a name, not a number, and stay as written.
TEST(GraphFileErrors, OnlyNumbersOutsideStringsAreReadAsDoubles) {
    const GraphFile file = parse_graph_file(graph_doc(R"([{"name": "18446744073709551616", "ne": [4]}])"), "g.json");
    EXPECT_EQ(file.context.tensors()[0].name, "18446744073709551616");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "\"18446744073709551616", "ne": [18446744073709551616]}])")),
              "g.json: $.tensors[0].ne[0] (tensor '\"18446744073709551616'): is too large: a number above 2^64 - 1");
}

// A number written past 64 bits reaches the reader as the nearest double (2^64 is read as
// 1.8446744073709552e+19): it was said to be "must be a non-negative integer, got the number
// 1.8446744073709552e+19", which it is, only too large. Each message is the field's range
// (unsigned: 0 to 2^64 - 1; signed: -2^63 to 2^63 - 1) and which side the number is on; the
// rounded double is not echoed, since it is not what the file says.
TEST(GraphFileErrors, NumbersPast64BitsAreSaidToBeTooLarge) {
    const auto with_type = [](std::string_view type) {
        return R"({"format": "ggml-graph/1", "buffer_types": [)" + std::string(type) +
               R"(], "tensors": [{"name": "a", "ne": [4]}], "leafs": ["a"], "nodes": []})";
    };
    EXPECT_EQ(error_of(with_type(R"({"name": "CPU", "alignment": 32, "max_size": 18446744073709551616})")),
              "g.json: $.buffer_types[0].max_size: must be at most 2^64 - 1 (18446744073709551615), got a number above it");
    EXPECT_EQ(error_of(with_type(R"({"name": "CPU", "alignment": 18446744073709551616})")),
              "g.json: $.buffer_types[0].alignment: must be at most 2^64 - 1 (18446744073709551615), got a number above it");
    EXPECT_EQ(error_of(with_type(R"({"name": "CPU", "alignment": 32, "max_size": -18446744073709551616})")),
              "g.json: $.buffer_types[0].max_size: must not be negative, got a number below -2^63");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [18446744073709551616]}])")),
              "g.json: $.tensors[0].ne[0] (tensor 'a'): is too large: a number above 2^64 - 1");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [-9223372036854775809]}])")),
              "g.json: $.tensors[0].ne[0] (tensor 'a'): is too small: a number below -2^63");
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [4], "view_offs": 1e30}])")),
              "g.json: $.tensors[0].view_offs (tensor 'a'): must be at most 2^64 - 1 (18446744073709551615), got a number above it");
    // 2^64 - 1 itself is a size (the largest), and a fraction is still no integer.
    EXPECT_EQ(parse_graph_file(with_type(R"({"name": "CPU", "alignment": 32, "max_size": 18446744073709551615})"), "g.json")
                  .buffer_types[0].max_size,
              std::optional<std::size_t>(18446744073709551615u));
    EXPECT_EQ(error_of(with_type(R"({"name": "CPU", "alignment": 32, "max_size": 2.5})")),
              "g.json: $.buffer_types[0].max_size: must be a non-negative integer, got the number 2.5");
}

// Every sum of a plan is at most the tensors' sizes rounded up to the alignment, summed; a
// graph whose sum passes 2^62 is refused, so no total can wrap (an alignment of 2^63 once
// made `plan` print "0 bytes in 2 chunks").
std::string aligned_pair(std::string_view alignment, std::string_view more_tensors = "") {
    return std::string(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": )") +
           std::string(alignment) + R"(}], "tensors": [{"name": "a", "ne": [4]}, {"name": "b", "ne": [4], "op": "ADD", "src": ["a", "a"]})" +
           std::string(more_tensors) + R"(], "leafs": ["a"], "nodes": ["b"]})";
}

TEST(GraphFileErrors, AlignmentsWhoseSumsWouldWrapAreRefused) {
    // One 4-byte tensor rounded up to 2^63 is already past 2^62.
    EXPECT_EQ(error_of(aligned_pair("9223372036854775808")),
              "g.json: $: the tensors need more than 2^62 bytes (4 EiB) with no reuse, each rounded up to the alignment "
              "9223372036854775808; plans this large are not computed (their sums would not be exact)");
    // Three tensors at 2^61 each: 3 x 2^61 > 2^62.
    EXPECT_NE(error_of(aligned_pair("2305843009213693952", R"(, {"name": "c", "ne": [4]})")).find("more than 2^62 bytes"),
              std::string::npos);
    // The same through the buffer settings a command line passes.
    GraphFile file = parse_graph_file(aligned_pair("32"), "g.json");
    BufferOverrides huge;
    huge.alignment = std::size_t{1} << 63;
    EXPECT_THROW(apply_buffer_overrides(file, huge), GraphFileError);
}

TEST(GraphFileErrors, TheLargestAlignmentAllowedIsPlannedExactly) {
    // Two tensors at 2^61 each sum to 2^62 exactly, the most allowed. a is live while b is
    // computed (b = a + a, and ADD in place is not taken for a leaf), so b goes after a:
    //   0          2^61         2^62
    //   [    a     |     b      )
    GraphFile file = parse_graph_file(aligned_pair("2305843009213693952"), "g.json");
    const PlanRun run = run_plan(file);
    ASSERT_TRUE(run.error.empty()) << run.error;
    ASSERT_EQ(run.plan.buffer_sizes.size(), 1u);
    EXPECT_EQ(run.plan.buffer_sizes[0], std::size_t{1} << 62);
    EXPECT_EQ(run.plan.chunk_sizes[0], (std::vector<std::size_t>{std::size_t{1} << 62}));
}

TEST(GraphFileErrors, AlignmentMustBeAPowerOfTwo) {
    EXPECT_EQ(error_of(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 24}]})"),
              "g.json: $.buffer_types[0].alignment: must be a power of two, got 24");
    EXPECT_EQ(error_of(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 0}]})"),
              "g.json: $.buffer_types[0].alignment: must be a power of two, got 0");
    EXPECT_EQ(error_of(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32, "max_size": 0}]})"),
              "g.json: $.buffer_types[0].max_size: must be positive");
}

TEST(GraphFileErrors, BufferIds) {
    const std::string leafs = R"(["a"])";
    const std::string nodes = R"(["b"])";
    EXPECT_EQ(error_of(graph_doc(kTwoTensors, leafs, nodes, R"(, "node_buffer_ids": [3])")),
              "g.json: $.node_buffer_ids[0]: buffer id 3 does not exist (there are 1)");
    EXPECT_EQ(error_of(graph_doc(kTwoTensors, leafs, nodes, R"(, "node_buffer_ids": [0, 0])")),
              "g.json: $.node_buffer_ids: has 2 entries for 1 tensors");
    EXPECT_EQ(error_of(graph_doc(kTwoTensors, leafs, nodes, R"(, "leaf_buffer_ids": [-1])")),
              "g.json: $.leaf_buffer_ids[0]: must not be negative, got -1");
    EXPECT_EQ(error_of(graph_doc(kTwoTensors, leafs, nodes, R"(, "buffers": [])")), "g.json: $.buffers: must list at least one buffer id");
}

TEST(GraphFileErrors, BadExpectedEntries) {
    auto expected = [](std::string_view tensors) {
        return graph_doc(kTwoTensors, R"(["a"])", R"(["b"])",
                         std::string(R"(, "expected": {"reserve": true, "alloc_graph": true, "buffer_sizes": [32],
                                        "chunk_sizes": [[32]], "tensors": )") + std::string(tensors) + "}");
    };
    EXPECT_EQ(error_of(expected(R"({"zz": {"buffer": 0, "chunk": 0, "offset": 0}})")),
              "g.json: $.expected.tensors.zz: unknown tensor \"zz\"");
    EXPECT_EQ(error_of(expected(R"({"a": {"buffer": 0, "chunk": 0}})")),
              "g.json: $.expected.tensors.a (tensor 'a'): missing required field \"offset\"");
    EXPECT_EQ(error_of(expected(R"({"a": {"buffer": 0, "chunk": 16, "offset": 0}})")),
              "g.json: $.expected.tensors.a.chunk: chunk 16 does not exist (there are 16)");
    EXPECT_EQ(error_of(expected(R"({"a": {"buffer": 1, "chunk": 0, "offset": 0}})")),
              "g.json: $.expected.tensors.a.buffer: buffer id 1 does not exist (there are 1)");
    EXPECT_EQ(error_of(expected(R"({"a": {"buffer": 0, "chunk": 0, "offset": -8}})")),
              "g.json: $.expected.tensors.a.offset (tensor 'a'): must not be negative, got -8");
    EXPECT_EQ(error_of(expected(R"({"a": {"buffer": 0, "chunk": 0, "offset": 0, "size": 16}})")),
              "g.json: $.expected.tensors.a (tensor 'a'): unknown field \"size\"");
    EXPECT_EQ(error_of(graph_doc(kTwoTensors, R"(["a"])", R"(["b"])",
                                 R"(, "expected": {"reserve": true, "alloc_graph": true, "buffer_sizes": ["32"], "chunk_sizes": [], "tensors": {}})")),
              "g.json: $.expected.buffer_sizes[0]: must be a non-negative integer, got the string \"32\"");
}

TEST(GraphFileErrors, MissingFileIsNamed) {
    const std::filesystem::path path = std::filesystem::temp_directory_path() / "gallocsim-no-such-file.json";
    try {
        load_graph_file(path);
        FAIL() << "expected GraphFileError";
    } catch (const GraphFileError& error) {
        EXPECT_EQ(std::string(error.what()), path.string() + ": no such file");
    }
}

// --- Defaults and saving ------------------------------------------------------------

TEST(GraphFileDefaults, MissingFieldsTakeTheFormatsDefaults) {
    GraphFile file = parse_graph_file(graph_doc(kTwoTensors, R"(["a"])", R"(["b"])"), "g.json");
    const Tensor& a = *file.context.find("a");
    EXPECT_EQ(a.type, DataType::f32);
    EXPECT_EQ(a.ne, (std::array<std::int64_t, 4>{4, 1, 1, 1}));
    EXPECT_EQ(a.nb, (std::array<std::size_t, 4>{4, 16, 16, 16}));
    EXPECT_EQ(a.op, Op::NONE);
    EXPECT_EQ(a.view_src, nullptr);
    EXPECT_EQ(a.flags.bits(), 0);
    EXPECT_EQ(a.data, nullptr);
    EXPECT_EQ(file.buffers, std::vector<int>{0});
    EXPECT_EQ(file.buffer_types[0].max_size, std::nullopt);
    EXPECT_EQ(file.buffer_types[0].alloc_size, AllocSizeRule::nbytes);
    EXPECT_TRUE(file.node_buffer_ids.empty());
    EXPECT_FALSE(file.expected.has_value());
}

// Saving writes the short form: no contiguous nb, no trailing null sources (holes stay),
// no trailing 1s in ne, no zero view_offs, no null max_size, no default buffers.
TEST(GraphFileDefaults, SavingOmitsDefaults) {
    const std::string text = graph_doc(
        R"([{"name": "a", "type": "f32", "ne": [4, 1, 1], "nb": [4, 16, 16, 16], "flags": ["output", "input"], "data": true},
            {"name": "b", "ne": [4], "op": "ADD", "src": ["a", null, "a", null, null]},
            {"name": "v", "ne": [2], "nb": [8, 8, 8, 8], "op": "VIEW", "src": ["b"], "view_src": "b", "view_offs": 0}])",
        R"(["a"])", R"(["b", "v"])", R"(, "buffers": ["CPU"])");
    const json saved = json::parse(graph_file_to_json(parse_graph_file(text, "g.json")));

    EXPECT_EQ(saved["tensors"][0], json::parse(R"({"name": "a", "type": "f32", "ne": [4], "flags": ["input", "output"], "data": true})"));
    EXPECT_EQ(saved["tensors"][1], json::parse(R"({"name": "b", "type": "f32", "ne": [4], "op": "ADD", "src": ["a", null, "a"]})"));
    EXPECT_EQ(saved["tensors"][2],
              json::parse(R"({"name": "v", "type": "f32", "ne": [2], "nb": [8, 8, 8, 8], "op": "VIEW", "src": ["b"], "view_src": "b"})"));
    EXPECT_EQ(saved["buffer_types"], json::parse(R"([{"name": "CPU", "alignment": 32}])"));
    EXPECT_FALSE(saved.contains("buffers"));
    EXPECT_FALSE(saved.contains("node_buffer_ids"));
}

// Version 2 adds one word: `"data": "buffer"`, a tensor in a buffer from outside the
// allocator with no data yet (a no_alloc load's weights). A version 1 file cannot say it, any
// other word is refused, and a file says the lowest version that holds what it has.
TEST(GraphFileVersions, BufferWithoutDataNeedsVersionTwo) {
    const std::string tensors = R"([{"name": "w", "ne": [4], "data": "buffer"}])";
    EXPECT_EQ(error_of(graph_doc(tensors)),
              "g.json: $.tensors[0].data (tensor 'w'): \"buffer\" (in a buffer, no data yet) needs \"format\": "
              "\"ggml-graph/2\"");
    std::string version_two = graph_doc(tensors, R"(["w"])");
    version_two.replace(version_two.find("ggml-graph/1"), 12, "ggml-graph/2");
    EXPECT_EQ(error_of(std::string(version_two).replace(version_two.find("\"buffer\""), 8, "\"host\"")),
              "g.json: $.tensors[0].data (tensor 'w'): must be true, false or \"buffer\", got \"host\"");

    const GraphFile file = parse_graph_file(version_two, "g.json");
    const Tensor& w = *file.context.find("w");
    EXPECT_TRUE(file.is_on_external_buffer(w));
    EXPECT_FALSE(file.is_external(w));
    EXPECT_EQ(file.format_version(), 2);
    const json saved = json::parse(graph_file_to_json(file));
    EXPECT_EQ(saved["format"], "ggml-graph/2");
    EXPECT_EQ(saved["tensors"][0], json::parse(R"({"name": "w", "type": "f32", "ne": [4], "data": "buffer"})"));

    // Without such a tensor a version 2 file is saved as version 1, which every reader reads.
    std::string plain = graph_doc(kTwoTensors, R"(["a"])", R"(["b"])");
    plain.replace(plain.find("ggml-graph/1"), 12, "ggml-graph/2");
    EXPECT_EQ(json::parse(graph_file_to_json(parse_graph_file(plain, "g.json")))["format"], "ggml-graph/1");
}

TEST(GraphFileDefaults, NonDefaultBuffersAndIdsAreKept) {
    const std::string text = R"({"format": "ggml-graph/1",
        "buffer_types": [{"name": "CPU", "alignment": 32}, {"name": "GPU", "alignment": 128, "max_size": 1024, "alloc_size": "cuda"}],
        "buffers": ["GPU", "CPU", "GPU"],
        "tensors": [{"name": "a", "ne": [4]}, {"name": "b", "ne": [4], "op": "ADD", "src": ["a", "a"]}],
        "leafs": ["a"], "nodes": ["b"], "leaf_buffer_ids": [1], "node_buffer_ids": [2]})";
    GraphFile file = parse_graph_file(text, "g.json");
    EXPECT_EQ(file.buffers, (std::vector<int>{1, 0, 1}));
    EXPECT_EQ(file.buffer_types[1], (BufferTypeSpec{"GPU", 128, 1024, AllocSizeRule::cuda}));

    const json saved = json::parse(graph_file_to_json(file));
    EXPECT_EQ(saved["buffers"], json::parse(R"(["GPU", "CPU", "GPU"])"));
    EXPECT_EQ(saved["buffer_types"][1], json::parse(R"({"name": "GPU", "alignment": 128, "max_size": 1024, "alloc_size": "cuda"})"));
    EXPECT_EQ(saved["leaf_buffer_ids"], json::parse("[1]"));
    EXPECT_EQ(saved["node_buffer_ids"], json::parse("[2]"));
}

// --- Golden round trip ----------------------------------------------------------------

using test_support::golden_files;

std::string name_of(const Tensor* t) { return t ? t->name : "(none)"; }

void expect_same_tensor(const GraphFile& want_file, const Tensor& want, const GraphFile& got_file, const Tensor& got) {
    SCOPED_TRACE(want.name);
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.type, want.type);
    EXPECT_EQ(got.ne, want.ne);
    EXPECT_EQ(got.nb, want.nb);
    EXPECT_EQ(got.op, want.op);
    EXPECT_EQ(got.op_params, want.op_params);
    for (std::size_t s = 0; s < want.src.size(); ++s) {
        EXPECT_EQ(name_of(got.src[s]), name_of(want.src[s])) << "src " << s;
    }
    EXPECT_EQ(name_of(got.view_src), name_of(want.view_src));
    EXPECT_EQ(got.view_offs, want.view_offs);
    EXPECT_EQ(got.flags, want.flags);
    EXPECT_EQ(got_file.is_external(got), want_file.is_external(want));
    EXPECT_EQ(got_file.is_on_external_buffer(got), want_file.is_on_external_buffer(want));
}

std::vector<std::string> names(const std::vector<Tensor*>& tensors) {
    std::vector<std::string> out;
    for (const Tensor* t : tensors) {
        out.push_back(t->name);
    }
    return out;
}

void expect_same_plan(const PlanRecord& want, const PlanRecord& got) {
    EXPECT_EQ(got.source, want.source);
    EXPECT_EQ(got.reserve, want.reserve);
    EXPECT_EQ(got.alloc_graph, want.alloc_graph);
    EXPECT_EQ(got.buffer_sizes, want.buffer_sizes);
    EXPECT_EQ(got.chunk_sizes, want.chunk_sizes);
    EXPECT_EQ(got.tensors, want.tensors);
}

// Load, save, load again: the same file, field for field.
// Captured graphs (docs/graph-format.md, Extensions): the program's own name of a renamed
// tensor and where the graph came from are read, written back, and checked like the rest.
TEST(GraphFileCaptures, OriginalNamesAndOriginSurviveSaveAndLoad) {
    const std::string doc = graph_doc(
        R"([{"name": "x", "ne": [4]}, {"name": "x#2", "original_name": "x", "ne": [4], "op": "ADD", "src": ["x", "x"]}])",
        R"(["x"])", R"(["x#2"])",
        R"(, "captured": {"session": "session-3.jsonl", "ggml_version": "0.25.3", "ggml_commit": null})");
    const GraphFile file = parse_graph_file(doc, "g.json");
    EXPECT_EQ(file.original_names, (std::map<std::size_t, std::string>{{1, "x"}}));
    ASSERT_TRUE(file.captured.has_value());
    EXPECT_EQ(*file.captured, (CaptureOrigin{"session-3.jsonl", "0.25.3", std::nullopt}));

    const json saved = json::parse(graph_file_to_json(file));
    EXPECT_FALSE(saved["tensors"][0].contains("original_name"));
    EXPECT_EQ(saved["tensors"][1]["original_name"], "x");
    EXPECT_EQ(saved["captured"], json::parse(R"({"session": "session-3.jsonl", "ggml_version": "0.25.3", "ggml_commit": null})"));
    const GraphFile again = parse_graph_file(saved.dump(), "saved.json");
    EXPECT_EQ(again.original_names, file.original_names);
    EXPECT_EQ(again.captured, file.captured);
}

TEST(GraphFileCaptures, BadCaptureFieldsAreNamed) {
    EXPECT_EQ(error_of(graph_doc(R"([{"name": "a", "ne": [1], "original_name": 7}])")),
              "g.json: $.tensors[0].original_name (tensor 'a'): must be a string, got the number 7");
    EXPECT_EQ(error_of(graph_doc("[]", "[]", "[]", R"(, "captured": {"ggml_version": null})")),
              "g.json: $.captured: missing required field \"session\"");
    EXPECT_EQ(error_of(graph_doc("[]", "[]", "[]", R"(, "captured": {"session": "s", "pid": 1})")),
              "g.json: $.captured: unknown field \"pid\"");
    EXPECT_EQ(error_of(graph_doc("[]", "[]", "[]", R"(, "captured": {"session": "s", "ggml_commit": 1})")),
              "g.json: $.captured.ggml_commit: must be a string, got the number 1");
}

TEST(GraphFileRoundTrip, EveryGoldenFileSurvivesSaveAndLoad) {
    const auto files = golden_files();
    if (files.empty()) {
        GTEST_SKIP() << test_support::golden_dir() << " not found";
    }
    EXPECT_EQ(files.size(), 200u);
    for (const auto& path : files) {
        SCOPED_TRACE(path.filename().string());
        const GraphFile original = load_graph_file(path);
        const std::string saved = graph_file_to_json(original);
        const GraphFile reloaded = parse_graph_file(saved, "saved");

        EXPECT_EQ(reloaded.name, original.name);
        EXPECT_EQ(reloaded.description, original.description);
        EXPECT_EQ(reloaded.buffer_types, original.buffer_types);
        EXPECT_EQ(reloaded.buffers, original.buffers);
        ASSERT_EQ(reloaded.context.size(), original.context.size());
        for (std::size_t i = 0; i < original.context.size(); ++i) {
            expect_same_tensor(original, original.context.tensors()[i], reloaded, reloaded.context.tensors()[i]);
        }
        EXPECT_EQ(names(reloaded.graph.leafs), names(original.graph.leafs));
        EXPECT_EQ(names(reloaded.graph.nodes), names(original.graph.nodes));
        EXPECT_EQ(reloaded.leaf_buffer_ids, original.leaf_buffer_ids);
        EXPECT_EQ(reloaded.node_buffer_ids, original.node_buffer_ids);
        ASSERT_EQ(reloaded.expected.has_value(), original.expected.has_value());
        if (original.expected) {
            expect_same_plan(*original.expected, *reloaded.expected);
        }
        if (::testing::Test::HasFailure()) {
            return;  // one broken file is enough to read
        }
    }
}

// The golden files follow the format's conventions, so saving one writes the very
// document that was read, except that some list the default buffers (one per buffer
// type), which the writer leaves out. Checked on every file whose name does not start
// with "random-" (the random ones come from the same generator; this keeps the suite fast).
TEST(GraphFileRoundTrip, SavingReproducesTheGoldenDocuments) {
    int checked = 0;
    for (const auto& path : golden_files()) {
        if (path.filename().string().starts_with("random-")) {
            continue;
        }
        SCOPED_TRACE(path.filename().string());
        const std::string text = read_text(path);
        const GraphFile file = parse_graph_file(text, path.string());
        json document = json::parse(text);
        const json written = json::parse(graph_file_to_json(file));
        if (!written.contains("buffers")) {
            document.erase("buffers");
        }
        EXPECT_TRUE(document == written) << "as a JSON patch from the file: " << json::diff(document, written).dump();
        ++checked;
    }
    if (checked == 0) {
        GTEST_SKIP() << test_support::golden_dir() << " not found";
    }
    EXPECT_EQ(checked, 22);
}

} // namespace
} // namespace gallocsim
