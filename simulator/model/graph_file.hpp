#pragma once
// Graph files (ggml-graph/1, see docs/graph-format.md): load with validation that names
// the file, the JSON path or tensor, and the problem; save in the format's conventions.

#include "reference/buffer.hpp"
#include "reference/graph_allocator.hpp"  // Placement
#include "reference/tensor.hpp"

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gallocsim {

struct BufferTypeSpec {
    std::string name;
    std::size_t alignment = 32;
    std::optional<std::size_t> max_size;  // absent: SIZE_MAX
    AllocSizeRule alloc_size = AllocSizeRule::nbytes;
    bool operator==(const BufferTypeSpec&) const = default;
};

// A place under a tensor's name, as an input gives it (a capture's session), before the name
// is read into the graph's id.
using NamedPlacement = std::pair<std::string, Placement>;

// One tensor's place in a plan: the tensor by its id in the plan's graph.
struct PlacedTensor {
    TensorId tensor = kNoTensor;
    Placement place;
    bool operator==(const PlacedTensor&) const = default;
};

// The `expected` section: what a plan gave (upstream's, or ours when written by `plan --json`).
// Of one graph, whose tensors its ids are: the names the file gives them are read into ids
// once (parse_graph_file) and written again from the graph (plan_record_to_json).
struct PlanRecord {
    std::string source;
    bool reserve = false;
    bool alloc_graph = false;
    std::vector<std::size_t> buffer_sizes;
    std::vector<std::vector<std::size_t>> chunk_sizes;
    std::vector<PlacedTensor> tensors;  // the tensors with memory, by ascending id: the graph's order
};

// `captured`: where a graph recorded by `gallocsim capture` came from.
struct CaptureOrigin {
    std::string session;                      // e.g. session-0.jsonl
    std::optional<std::string> ggml_version;  // null where the program's ggml reports none
    std::optional<std::string> ggml_commit;
    bool operator==(const CaptureOrigin&) const = default;
};

class GraphFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A graph as a file describes it: input only. Planning never writes into it; a plan works on
// a copy of its tensors (working_graph.hpp), so no address of a buffer is ever kept here.
// Move-only: the graph points into the context.
struct GraphFile {
    std::string name;
    std::string description;
    std::vector<BufferTypeSpec> buffer_types;
    std::vector<int> buffers;  // buffer id -> index into buffer_types
    Context context;           // tensors in file order
    Graph graph;
    std::vector<int> node_buffer_ids;  // empty: all 0
    std::vector<int> leaf_buffer_ids;
    std::optional<PlanRecord> expected;
    std::optional<CaptureOrigin> captured;
    // Tensor index -> the name the program gave it, where `name` had to differ (captures).
    std::map<std::size_t, std::string> original_names;

    GraphFile() = default;
    GraphFile(GraphFile&&) noexcept = default;
    GraphFile& operator=(GraphFile&&) noexcept = default;

    // Is the tensor's memory outside the allocator (`data: true`, ggml's weights)? `tensor`
    // is one of the file's, or its copy in a working graph (the index is the same).
    bool is_external(const Tensor& tensor) const;
    void mark_external(const Tensor& tensor);
    // Is the tensor in a buffer the allocator does not own, with no data yet (`data:
    // "buffer"`, version 2: the weights and KV cache of a no_alloc load, as llama.cpp's fit
    // pass makes them)? Whether the allocator plans it is a rule of its state.
    bool is_on_external_buffer(const Tensor& tensor) const;
    void mark_on_external_buffer(const Tensor& tensor);
    // The lowest format version that says everything the file holds: 2 with a tensor on an
    // external buffer, else 1 (so that every older reader still reads what it can).
    int format_version() const;
    int buffer_count() const { return static_cast<int>(buffers.size()); }

    // The size the program's buffer type gave a tensor where no alloc-size rule of the format
    // fits (a tensor's `alloc_size`, written by captures); by tensor index, shared with the
    // buffer types that plan the file. Null when no tensor has one.
    std::shared_ptr<const std::vector<std::optional<std::size_t>>> tensor_sizes() const { return tensor_sizes_; }
    std::optional<std::size_t> recorded_alloc_size(const Tensor& tensor) const;
    void record_alloc_size(const Tensor& tensor, std::size_t size);

private:
    enum class OutsideMemory : unsigned char { none, data, buffer };
    void mark(const Tensor& tensor, OutsideMemory memory);
    OutsideMemory outside_memory(const Tensor& tensor) const;
    std::vector<OutsideMemory> outside_;  // by tensor index; absent: none
    std::shared_ptr<std::vector<std::optional<std::size_t>>> tensor_sizes_;  // copied on write once shared
};

// Every sum a plan of the graph makes (offsets, chunk sizes, buffer totals, the no-reuse
// figure) is at most the sum over tensors with memory of their size rounded up to the
// largest alignment, under the larger alloc-size rule. Keeping that below 2^62 bytes (4 EiB)
// keeps them all exact; a graph that needs more is refused (GraphFileError naming `source`,
// the figure and the largest alignment) rather than planned with wrapped numbers.
inline constexpr std::uint64_t kMaxGraphBytes = std::uint64_t{1} << 62;
void check_graph_bytes(const GraphFile& file, std::string_view source);

// Throws GraphFileError: "FILE: $.json.path (tensor 'name'): problem". A graph inside a
// larger document (a GUI session's "$.graph") gives that path as `json_root`, and its errors
// name one path from the larger document's root: "sess.json: $.graph.tensors[0].ne: ...".
GraphFile parse_graph_file(std::string_view text, std::string_view source_name, std::string_view json_root = "$");
GraphFile load_graph_file(const std::filesystem::path& path);

// Serialises in the format's conventions: tensors in context order, nb only when not
// contiguous, trailing null sources dropped, defaults omitted.
std::string graph_file_to_json(const GraphFile& file, int indent = 2);
// `tensors`: the plan's graph, which names its tensors.
std::string plan_record_to_json(const PlanRecord& plan, const Context& tensors, int indent = 2);

// The name of a tensor of `tensors` by its id, for whatever shows it.
inline const std::string& tensor_name(const Context& tensors, TensorId id) {
    return tensors.tensors().at(static_cast<std::size_t>(id)).name;
}

// A graph's tensors by name, for reading names into ids once where they come in (a capture's
// places, a second file's tensors): each name stands for the first tensor with it, as in
// ggml_get_tensor. The keys view the context's names: valid while no tensor is renamed.
using TensorsByName = std::unordered_map<std::string_view, TensorId>;
TensorsByName tensors_by_name(const Context& tensors);

} // namespace gallocsim
