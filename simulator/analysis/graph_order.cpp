#include "simulator/analysis/graph_order.hpp"

#include <algorithm>
#include <limits>

namespace gallocsim {
namespace {

constexpr std::size_t kNotANode = std::numeric_limits<std::size_t>::max();

std::string node_at(std::size_t position, std::size_t nodes) {
    return "node " + std::to_string(position + 1) + " of " + std::to_string(nodes);
}

} // namespace

std::vector<EarlyRead> early_reads(const GraphFile& file) {
    const auto& nodes = file.graph.nodes;
    std::vector<std::size_t> position(file.context.tensors().size(), kNotANode);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        position[nodes[i]->index] = i;
    }
    std::vector<EarlyRead> reads;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const Tensor& reader = *nodes[i];
        std::vector<std::size_t> seen;
        for (const Tensor* src : reader.src) {
            if (src == nullptr || std::ranges::find(seen, src->index) != seen.end()) {
                continue;
            }
            seen.push_back(src->index);
            const std::size_t at = position[src->index];
            if (at == kNotANode || at < i) {
                continue;  // a leaf (placed before any node) or a node that has run
            }
            EarlyRead::Kind kind = EarlyRead::Kind::later_node;
            if (src == &reader) {
                kind = EarlyRead::Kind::itself;
            } else if (reader.op == Op::NONE && reader.is_view()) {
                kind = EarlyRead::Kind::dependency;
            }
            EarlyRead read{kind, reader.index, src->index, i, at, std::nullopt, std::nullopt};
            if (src != &reader && src->view_src != nullptr) {
                read.root = src->view_src->index;
                if (const std::size_t root_at = position[src->view_src->index]; root_at != kNotANode) {
                    read.root_node = root_at;
                }
            }
            reads.push_back(read);
        }
    }
    return reads;
}

std::string sentence(const GraphFile& file, const EarlyRead& read) {
    const auto& tensors = file.context.tensors();
    const std::string reader = tensors[read.reader].name;
    const std::string source = tensors[read.source].name;
    const std::size_t nodes = file.graph.nodes.size();
    const std::string at = reader + " (" + node_at(read.reader_node, nodes) + ")";
    const std::string later = source + ", which runs after it (" + node_at(read.source_node, nodes) + ")";
    if (read.kind == EarlyRead::Kind::itself) {
        return at + " names itself as a source (as ggml_cast's CPY does for its destination): ggml gives it memory as its "
                    "own source and counts it as one of its own consumers, and a parent whose memory it takes in place is "
                    "given memory a second time as its next source; if its op reads that source, it reads the bytes it is "
                    "writing.";
    }
    // What ggml plans early, and whether the bytes the reader sees are computed by then.
    std::string planned;
    bool computed = false;
    if (read.root) {
        const std::string root = tensors[*read.root].name;
        computed = !read.root_node || *read.root_node < read.reader_node;
        std::string whose = read.root_node ? root + "'s, which has run already" : "those of " + root + ", a leaf";
        if (read.root_node && *read.root_node == read.reader_node) {
            whose = reader + "'s own, the ones it is writing";
        } else if (!computed) {
            whose = root + "'s, which runs after " + reader + " too (" + node_at(*read.root_node, nodes) +
                    ") and gets its memory only then";
        }
        planned = "a view owns no memory, so ggml plans nothing early; its bytes are " + whose;
    } else {
        planned = "ggml gives " + source + " memory early, as " + reader + "'s source, and gives it memory again when it "
                  "runs if by then that memory was freed or went to another tensor";
    }
    if (read.kind == EarlyRead::Kind::dependency) {
        return at + ", a view that computes nothing (op NONE, as ggml's scheduler adds to keep a split's input alive), "
                    "names " + later + ", as a source: " + planned + "; no value is read early.";
    }
    return at + " reads " + later + ": " + planned + "; " + reader +
           (computed ? " reads values that are computed, though the graph lists their view late."
                     : " reads " + source + "'s bytes before they are computed.");
}

std::string kind_key(EarlyRead::Kind kind) {
    switch (kind) {
    case EarlyRead::Kind::later_node: return "reads-later-node";
    case EarlyRead::Kind::dependency: return "keeps-later-node-alive";
    case EarlyRead::Kind::itself: return "reads-itself";
    }
    return "?";
}

} // namespace gallocsim
