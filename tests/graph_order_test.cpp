// Nodes that read a node run after them, or themselves (analysis/graph_order): which reads are
// found, in which order, and what each one's sentence says. Each expectation is read off the
// graph written in the test: a node's position in `nodes` against its sources' positions.
#include "simulator/analysis/graph_order.hpp"
#include "simulator/model/graph_file.hpp"

#include <gtest/gtest.h>

namespace gallocsim {
namespace {

GraphFile graph(std::string_view tensors, std::string_view leafs, std::string_view nodes) {
    return parse_graph_file(R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}], "tensors": [)" +
                                std::string(tensors) + R"(], "leafs": [)" + std::string(leafs) + R"(], "nodes": [)" +
                                std::string(nodes) + "]}",
                            "order.json");
}

std::size_t index_of(const GraphFile& file, std::string_view name) {
    return file.context.find(name)->index;
}

TEST(GraphOrder, AGraphInOrderHasNoEarlyRead) {
    const GraphFile file = graph(R"({"name": "a", "ne": [4]}, {"name": "b", "ne": [4], "op": "SCALE", "src": ["a"]},
                                    {"name": "c", "ne": [4], "op": "ADD", "src": ["b", "a"]})",
                                 R"("a")", R"("b", "c")");
    EXPECT_TRUE(early_reads(file).empty());
}

// nodes: d (position 0) reads c (position 1): one read, later_node.
TEST(GraphOrder, ANodeReadingALaterNodeIsNamedOnceWithBothPositions) {
    const GraphFile file = graph(R"({"name": "a", "ne": [4]}, {"name": "b", "ne": [4]},
                                    {"name": "c", "ne": [4], "op": "ADD", "src": ["a", "b"]},
                                    {"name": "d", "ne": [4], "op": "MUL", "src": ["c", "c"]})",
                                 R"("a", "b")", R"("d", "c")");
    const std::vector<EarlyRead> reads = early_reads(file);
    ASSERT_EQ(reads.size(), 1u);  // c is named twice as d's source, and counted once
    EXPECT_EQ(reads[0].kind, EarlyRead::Kind::later_node);
    EXPECT_EQ(reads[0].reader, index_of(file, "d"));
    EXPECT_EQ(reads[0].source, index_of(file, "c"));
    EXPECT_EQ(reads[0].reader_node, 0u);
    EXPECT_EQ(reads[0].source_node, 1u);
    EXPECT_EQ(sentence(file, reads[0]),
              "d (node 1 of 2) reads c, which runs after it (node 2 of 2): ggml gives c memory early, as d's source, and "
              "gives it memory again when it runs if by then that memory was freed or went to another tensor; d reads "
              "c's bytes before they are computed.");
    EXPECT_EQ(kind_key(reads[0].kind), "reads-later-node");
}

TEST(GraphOrder, ANodeReadingItselfIsNamed) {
    const GraphFile file = graph(R"({"name": "a", "ne": [4]}, {"name": "x", "ne": [4], "op": "ADD", "src": ["x", "a"]})",
                                 R"("a")", R"("x")");
    const std::vector<EarlyRead> reads = early_reads(file);
    ASSERT_EQ(reads.size(), 1u);
    EXPECT_EQ(reads[0].kind, EarlyRead::Kind::itself);
    EXPECT_EQ(reads[0].reader, reads[0].source);
    EXPECT_EQ(reads[0].reader_node, reads[0].source_node);
    EXPECT_EQ(kind_key(reads[0].kind), "reads-itself");
}

// The scheduler's dependency view: an op NONE view of v, listed first, names r (a later node)
// as a source. It computes nothing, so nothing is read early.
TEST(GraphOrder, AnOpNoneViewNamingALaterNodeOnlyKeepsItAlive) {
    const GraphFile file = graph(R"({"name": "v", "ne": [4]}, {"name": "r", "ne": [4], "op": "RESHAPE", "src": ["v"], "view_src": "v"},
                                    {"name": "keep", "ne": [4], "src": ["r"], "view_src": "v"})",
                                 R"("v")", R"("keep", "r")");
    const std::vector<EarlyRead> reads = early_reads(file);
    ASSERT_EQ(reads.size(), 1u);
    EXPECT_EQ(reads[0].kind, EarlyRead::Kind::dependency);
    EXPECT_NE(sentence(file, reads[0]).find("no value is read early"), std::string::npos);
}

// s (node 2) reads v, a view listed after it (node 3) of r, which ran at node 1: the bytes read
// are r's, computed; a view gets no memory, so nothing is planned early.
TEST(GraphOrder, ALaterViewOfANodeThatHasRunReadsComputedValues) {
    const GraphFile file = graph(R"({"name": "a", "ne": [4]}, {"name": "r", "ne": [4], "op": "SCALE", "src": ["a"]},
                                    {"name": "v", "ne": [4], "op": "RESHAPE", "src": ["r"], "view_src": "r"},
                                    {"name": "s", "ne": [4], "op": "ADD", "src": ["v", "a"]})",
                                 R"("a")", R"("r", "s", "v")");
    const std::vector<EarlyRead> reads = early_reads(file);
    ASSERT_EQ(reads.size(), 1u);
    EXPECT_EQ(reads[0].root, index_of(file, "r"));
    EXPECT_EQ(reads[0].root_node, 0u);
    EXPECT_EQ(sentence(file, reads[0]),
              "s (node 2 of 3) reads v, which runs after it (node 3 of 3): a view owns no memory, so ggml plans nothing "
              "early; its bytes are r's, which has run already; s reads values that are computed, though the graph lists "
              "their view late.");
}

// The same view, but r now runs after s too: s reads bytes r has not computed.
TEST(GraphOrder, ALaterViewOfALaterNodeReadsUncomputedBytes) {
    const GraphFile file = graph(R"({"name": "a", "ne": [4]}, {"name": "r", "ne": [4], "op": "SCALE", "src": ["a"]},
                                    {"name": "v", "ne": [4], "op": "RESHAPE", "src": ["r"], "view_src": "r"},
                                    {"name": "s", "ne": [4], "op": "ADD", "src": ["v", "a"]})",
                                 R"("a")", R"("s", "r", "v")");
    const std::vector<EarlyRead> reads = early_reads(file);
    ASSERT_EQ(reads.size(), 1u);
    EXPECT_EQ(reads[0].root_node, 1u);
    EXPECT_EQ(sentence(file, reads[0]),
              "s (node 1 of 3) reads v, which runs after it (node 3 of 3): a view owns no memory, so ggml plans nothing "
              "early; its bytes are r's, which runs after s too (node 2 of 3) and gets its memory only then; s reads v's "
              "bytes before they are computed.");
}

// A leaf is placed before any node runs: reading it is never early, wherever it is listed.
TEST(GraphOrder, LeafsAreNeverReadEarly) {
    const GraphFile file = graph(R"({"name": "w", "ne": [4]}, {"name": "y", "ne": [4], "op": "SCALE", "src": ["w"]})",
                                 R"("w")", R"("y")");
    EXPECT_TRUE(early_reads(file).empty());
}

} // namespace
} // namespace gallocsim
