#pragma once
// Nodes that read a node which runs after them, or themselves: what ggml does with such a graph,
// and what it means for the values read. ggml plans these graphs (it gives the later node memory
// early, as a source), and real scheduler graphs hold some (a view that keeps a split's input
// alive, listed before the input's own node); but a plan of one can place a tensor twice, and a
// reader of a node not yet run reads bytes nothing has written. Every command that plans a graph
// says so once, from this report: the data (EarlyRead) and its words (sentence).

#include "simulator/model/graph_file.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim {

struct EarlyRead {
    enum class Kind {
        later_node,  // a node reads a node listed after it
        dependency,  // an op NONE view (computes nothing) names a later node: the scheduler's way to keep it alive
        itself,      // a node names itself as a source (as ggml_cast's CPY does for its destination)
    };
    Kind kind = Kind::later_node;
    std::size_t reader = 0;       // tensor index in the file's context
    std::size_t source = 0;       // tensor index (the reader's own for `itself`)
    std::size_t reader_node = 0;  // position in graph.nodes (node step reader_node + 1)
    std::size_t source_node = 0;  // the source's position in graph.nodes
    // A source that is a view owns no memory: its root's tensor index, and the root's position in
    // graph.nodes (none for a leaf), say whether the bytes read are computed yet.
    std::optional<std::size_t> root;
    std::optional<std::size_t> root_node;
};

// Every such read, by reader in execution order, then by source slot; each (reader, source) once.
std::vector<EarlyRead> early_reads(const GraphFile& file);

// One sentence: which node, which source, what ggml does with it, what it means for the values.
std::string sentence(const GraphFile& file, const EarlyRead& read);

// The word JSON reports use for a kind: "reads-later-node", "keeps-later-node-alive", "reads-itself".
std::string kind_key(EarlyRead::Kind kind);

} // namespace gallocsim
