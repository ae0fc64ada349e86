#pragma once
// What one graph-allocator call saw and did, in the shapes of docs/graph-format.md: the
// graph as a ggml-graph/1 document (taken before the call), and after it the buffer
// sizes, chunk sizes, places and the alloc-size rule each buffer type followed.

#include "simulator/capture/ggml_api.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gallocsim::capture {

using ojson = nlohmann::ordered_json;

// The fields of the program's tensors and graphs, read where its ggml version keeps them.
class GgmlReader {
public:
    explicit GgmlReader(const GgmlApi& ggml) : ggml_(ggml), layout_(*ggml.layout) {}

    const GgmlApi& api() const { return ggml_; }
    std::size_t max_dims() const { return layout_.max_dims; }
    std::size_t max_src() const { return layout_.max_src; }

    ggml_type type(const ggml_tensor* t) const { return read<ggml_type>(t, layout_.type); }
    ggml_backend_buffer_t buffer(const ggml_tensor* t) const { return read<ggml_backend_buffer_t>(t, layout_.buffer); }
    std::int64_t ne(const ggml_tensor* t, std::size_t d) const { return read<std::int64_t>(t, layout_.ne + d * sizeof(std::int64_t)); }
    std::size_t nb(const ggml_tensor* t, std::size_t d) const { return read<std::size_t>(t, layout_.nb + d * sizeof(std::size_t)); }
    ggml_op op(const ggml_tensor* t) const { return read<ggml_op>(t, layout_.op); }
    std::int32_t flags(const ggml_tensor* t) const { return read<std::int32_t>(t, layout_.flags); }
    const ggml_tensor* src(const ggml_tensor* t, std::size_t k) const {
        return read<const ggml_tensor*>(t, layout_.src + k * sizeof(ggml_tensor*));
    }
    const ggml_tensor* view_src(const ggml_tensor* t) const { return read<const ggml_tensor*>(t, layout_.view_src); }
    std::size_t view_offs(const ggml_tensor* t) const { return read<std::size_t>(t, layout_.view_offs); }
    const void* data(const ggml_tensor* t) const { return read<const void*>(t, layout_.data); }
    std::string name(const ggml_tensor* t) const {
        const char* text = reinterpret_cast<const char*>(t) + layout_.name;
        return std::string(text, strnlen(text, ggml_.max_name));
    }

    int n_nodes(const ggml_cgraph* g) const { return read<int>(g, layout_.graph_n_nodes); }
    int n_leafs(const ggml_cgraph* g) const { return read<int>(g, layout_.graph_n_leafs); }
    const ggml_tensor* node(const ggml_cgraph* g, int i) const { return element(g, layout_.graph_nodes, i); }
    const ggml_tensor* leaf(const ggml_cgraph* g, int i) const { return element(g, layout_.graph_leafs, i); }

private:
    template <class T>
    static T read(const void* object, std::size_t offset) {
        T value;
        std::memcpy(&value, static_cast<const char*>(object) + offset, sizeof value);
        return value;
    }
    static const ggml_tensor* element(const ggml_cgraph* g, std::size_t array, int i) {
        return read<const ggml_tensor*>(read<const ggml_tensor* const*>(g, array) + i, 0);
    }

    const GgmlApi& ggml_;
    const gallocsim_ggml_layout& layout_;
};

// An allocator's buffer ids (ggml_gallocr_new_n's array) and its distinct buffer types.
struct BufferLayout {
    struct Type {
        ggml_backend_buffer_type_t buft;
        std::string name;  // made unique if two types share a name
        std::size_t alignment;
        std::size_t max_size;
    };
    std::vector<Type> types;       // in order of first use by a buffer id
    std::vector<int> type_of_id;   // buffer id -> index into types

    int first_id(int type) const;  // the lowest buffer id of a type: where its places are reported
    int type_index(ggml_backend_buffer_type_t buft) const;  // -1 if not one of ours
};
BufferLayout describe_buffers(const GgmlApi& ggml, const ggml_backend_buffer_type_t* bufts, int count);
ojson buffer_types_json(const BufferLayout& layout);  // as in session line 1: max_size null for SIZE_MAX
ojson buffer_ids_json(const BufferLayout& layout);

// The chunks (backend buffers) an allocator holds per buffer type, in chunk order.
struct Chunk {
    ggml_backend_buffer_t buffer;
    std::size_t size;   // what the buffer reports (ggml_backend_buffer_get_size)
    std::size_t asked;  // what the allocator asked the buffer type for
};
using ChunkLists = std::map<ggml_backend_buffer_type_t, std::vector<Chunk>>;

// How a buffer type's get_alloc_size behaved on the tensors it holds in one call: a rule
// the graph format names, or "recorded" (each tensor's size is written into the graph file).
struct AllocSizeFinding {
    std::string rule = "nbytes";  // nbytes, cuda or recorded
};

// The graph of one call, taken before the call (whether a tensor has memory is what the
// call changes). Tensors are listed leafs first, then nodes, each after its view root and
// sources; their names are made unique (see docs/graph-format.md, "Tensor names").
class GraphRecord {
public:
    GraphRecord(const GgmlApi& ggml, const ggml_cgraph* graph, const int* node_buffer_ids, const int* leaf_buffer_ids);

    int node_count() const { return static_cast<int>(nodes_.size()); }
    int leaf_count() const { return static_cast<int>(leafs_.size()); }

    // Per tensor, the buffer type it is planned in (-1: none), by the buffer ids passed:
    // a leaf by its leaf id; any other tensor by the first node, in order, that it is or
    // that uses it as a source, as the allocator assigns them.
    std::vector<int> planned_types(const BufferLayout& layout) const;
    // Per tensor, the buffer type alloc_graph put it in: the type whose chunks hold its
    // buffer (-1: none, or not one of the allocator's chunks). Found by the buffer, not by
    // the type the buffer reports: a buffer type may hand out buffers tagged as another's.
    std::vector<int> placed_types(const BufferLayout& layout, const ChunkLists& chunks) const;
    // Per buffer type, the get_alloc_size rule its tensors (non-views without memory) followed;
    // each such tensor's size is kept for a type whose rule the format cannot name.
    std::vector<AllocSizeFinding> alloc_size_rules(const BufferLayout& layout, const std::vector<int>& type_of_tensor);
    // After alloc_graph: {name: {buffer, chunk, offset}} for every tensor placed in one of the chunks.
    ojson places(const BufferLayout& layout, const ChunkLists& chunks) const;
    // The graph document (ggml-graph/1, or /2 when a tensor is in a buffer without data),
    // without name and `captured`.
    ojson graph_json(const BufferLayout& layout, const std::vector<AllocSizeFinding>& rules) const;

private:
    void collect(const ggml_cgraph* graph);
    void name_tensors();
    ojson tensor_json(std::size_t index) const;
    std::size_t index_of(const ggml_tensor* tensor) const { return index_.at(tensor); }
    std::size_t cuda_alloc_size(const ggml_tensor* tensor) const;

    const GgmlApi& ggml_;
    GgmlReader read_;
    std::vector<const ggml_tensor*> tensors_;
    std::unordered_map<const ggml_tensor*, std::size_t> index_;
    std::vector<std::string> names_;
    // What memory a tensor had before the call, from outside the allocator: data (a weight,
    // the KV cache), or only a buffer (a no_alloc load's dummy buffer: llama.cpp's fit pass).
    enum class PriorMemory : unsigned char { none, buffer, data };
    std::vector<PriorMemory> prior_memory_;
    std::vector<std::optional<std::size_t>> recorded_sizes_;  // by tensor, for "recorded" types
    std::vector<std::size_t> leafs_, nodes_;  // indices into tensors_
    std::vector<int> node_buffer_ids_, leaf_buffer_ids_;  // empty when the call passed none
};

// Compact JSON; bytes that are not UTF-8 (in an original name) become U+FFFD, never an error.
std::string dump(const ojson& value);

// A stable 64-bit hash of a document's text (FNV-1a), as 16 hex digits: graph file names.
std::string content_hash(const std::string& text);

// One line per tensor and per buffer type, the rest of the document on lines of its own.
std::string graph_file_text(const ojson& document);

} // namespace gallocsim::capture
