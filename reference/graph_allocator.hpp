#pragma once
// ggml_gallocr: plans a whole graph's memory (reserve), allocates the buffers the plan
// needs, and gives every tensor its address (alloc_graph). Buffer ids that share a buffer
// type share one dynamic allocator and one (virtual) buffer, as in ggml.

#include "reference/buffer.hpp"
#include "reference/dynamic_allocator.hpp"
#include "reference/observer.hpp"
#include "reference/profile.hpp"
#include "reference/tensor.hpp"
#include "reference/tensor_map.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gallocsim {

// Per-tensor planning record (ggml's hash_node).
struct HashNode {
    int children = 0;  // consumers not yet run
    int views = 0;     // views not yet released
    int buffer_id = 0;
    BufferAddress address{};
    bool allocated = false;  // the allocator owns this tensor's memory right now
    bool operator==(const HashNode&) const = default;
};

// Where the plan puts one tensor (ggml's tensor_alloc). size_max 0: pre-allocated or view.
struct TensorAlloc {
    int buffer_id = -1;
    BufferAddress address = kInvalidAddress;
    std::size_t size_max = 0;
    bool operator==(const TensorAlloc&) const = default;
};

// Where the plan put a node and its sources (ggml's node_alloc). Upstream keeps ten source
// places per node, 352 bytes; most nodes have one to three sources, so only the places up
// to the node's last source are kept, in the allocator's table of source places.
struct NodeAlloc {
    TensorAlloc dst;
    std::uint32_t first_source = 0;  // src[0]'s place in the source table
    std::uint32_t source_count = 0;  // places kept: up to the node's last source
};

// The chunks of one buffer type: one backend buffer per chunk of the plan.
class VirtualBuffer {
public:
    // nullptr when a chunk could not be allocated (the chunks already had are released).
    static std::unique_ptr<VirtualBuffer> allocate(BufferType& type, std::span<const std::size_t> chunk_sizes,
                                                   BufferUsage usage, const AllocatorProfile& profile);

    std::size_t size() const;
    std::size_t chunk_size(int chunk) const;
    int chunk_count() const { return static_cast<int>(chunks_.size()); }
    Buffer* chunk(int chunk) const;
    void reset();

private:
    std::vector<std::unique_ptr<Buffer>> chunks_;
};

// Where an allocated tensor ended up: the buffer id (the lowest of its buffer type),
// the chunk and the offset from that chunk's base.
struct Placement {
    int buffer_id = 0;
    int chunk = 0;
    std::size_t offset = 0;
    bool operator==(const Placement&) const = default;
};

class GraphAllocator {
public:
    // ggml_gallocr_new / ggml_gallocr_new_n, planning by the rules of `profile`'s version
    // (kept by reference: profiles are static data).
    explicit GraphAllocator(BufferType& type, const AllocatorProfile& profile = newest_profile());
    explicit GraphAllocator(std::span<BufferType* const> types, const AllocatorProfile& profile = newest_profile());
    GraphAllocator(const GraphAllocator&) = delete;
    GraphAllocator& operator=(const GraphAllocator&) = delete;

    // Plans the graph and (re)allocates buffers that are too small. Ids may be empty
    // (all 0) or one per node / leaf. False, with last_error(), on failure.
    bool reserve(const Graph& graph) { return reserve_n(graph, {}, {}); }
    bool reserve_n(const Graph& graph, std::span<const int> node_buffer_ids, std::span<const int> leaf_buffer_ids);

    // Plans only: the bytes each buffer id would need; allocates nothing. Fails (nullopt,
    // last_error) under a profile whose upstream has no reserve_n_size.
    std::optional<std::vector<std::size_t>> reserve_n_size(const Graph& graph, std::span<const int> node_buffer_ids,
                                                           std::span<const int> leaf_buffer_ids);

    // Gives every tensor of the graph its memory from the plan. Re-plans automatically
    // when the graph no longer fits and there is one buffer; false with several.
    bool alloc_graph(Graph& graph);

    bool needs_realloc(const Graph& graph) const;
    std::size_t buffer_size(int buffer_id) const;  // 0 for an id sharing an earlier id's type
    std::vector<std::size_t> chunk_sizes(int buffer_id) const;  // empty for such an id

    int buffer_count() const { return static_cast<int>(types_.size()); }
    BufferType& buffer_type(int buffer_id) const { return *types_.at(static_cast<std::size_t>(buffer_id)); }
    const DynamicAllocator& allocator(int buffer_id) const;
    // The first buffer id that uses the same allocator (and buffer) as `buffer_id`.
    int canonical_buffer_id(int buffer_id) const;

    const AllocatorProfile& profile() const { return *profile_; }
    const std::string& last_error() const { return last_error_; }
    void set_observer(AllocationObserver* observer) { observer_ = observer; }

    // Inspection of the last plan.
    const HashNode* hash_node(const Tensor& tensor) const { return hash_.find(&tensor); }
    std::span<const NodeAlloc> node_allocs() const { return node_allocs_; }
    // The place planned for source `j` of node `node`: none (buffer id -1, as upstream
    // records a missing source) past the node's last source.
    TensorAlloc source_alloc(std::size_t node, int j) const;
    std::span<const TensorAlloc> leaf_allocs() const { return leaf_allocs_; }
    // Where alloc_graph put a tensor (nullopt if it has no memory of ours).
    std::optional<Placement> locate(const Tensor& tensor) const;

private:
    struct Slot {
        int allocator = 0;  // index into allocators_ / buffers_
    };

    // What planning keeps per tensor: ggml's hash node, and the tensor's size in its buffer
    // type, worked out when the tensor gets its place. Upstream asks the buffer type again
    // on every free and while recording the plan; a plan asks about a tensor up to five times.
    struct TensorRecord : HashNode {
        std::size_t alloc_size = 0;  // 0: not worked out (or truly 0: then asking again is harmless)
        bool placed = false;  // given memory once in this plan (a second time is reported: TensorPlacedAgain)
    };

    TensorRecord& node_of(const Tensor* tensor) { return hash_[tensor]; }
    std::size_t alloc_size_of(const Tensor& tensor, TensorRecord& record);
    bool is_allocated(const Tensor& tensor, const HashNode& record) const;
    const TensorAlloc& source_place(const NodeAlloc& node, int j) const {
        static constexpr TensorAlloc kNoPlace{};
        const auto index = static_cast<std::uint32_t>(j);
        return index < node.source_count ? source_allocs_[node.first_source + index] : kNoPlace;
    }
    void make_room_for_step();
    static constexpr std::size_t kTensorsPerStep = 2 * (1 + kMaxSrc);  // a node and its sources, each with its view source
    DynamicAllocator& allocator_of(int buffer_id) { return allocators_[static_cast<std::size_t>(slots_[static_cast<std::size_t>(buffer_id)].allocator)]; }

    bool check_buffer_ids(const Graph& graph, std::span<const int> node_ids, std::span<const int> leaf_ids);
    bool plan(const Graph& graph, std::span<const int> node_ids, std::span<const int> leaf_ids, bool measure_only);
    void plan_graph(const Graph& graph, std::span<const int> node_ids, std::span<const int> leaf_ids);
    void count_consumers(const Graph& graph, std::span<const int> node_ids);
    void release_parents(const Tensor& node);
    void allocate_tensor(const Tensor* tensor, int buffer_id, AllocationPhase phase);
    bool try_inplace(const Tensor* node, TensorRecord& node_record);
    void free_extra_space(const Tensor& node, const TensorRecord& record, const Tensor& parent, TensorRecord& parent_record);
    void free_tensor(const Tensor& tensor, TensorRecord& record, FreeReason reason);
    void record_plan(const Graph& graph);
    TensorAlloc tensor_alloc_of(const Tensor& tensor);
    bool allocate_buffers(bool measure_only);
    // Whether needs_realloc has checked the tensor against its place: then the place's
    // size_max holds it, and the buffer type need not be asked for its size again.
    enum class SizeChecked : bool { no, yes };
    bool init_tensor(Tensor& tensor, const TensorAlloc& alloc, SizeChecked checked);
    bool fail(std::string message);

    // The event is built only when someone listens: a plan with no observer pays one test.
    template <typename E, typename... Fields>
    void emit(const Fields&... fields) {
        if (observer_) {
            observer_->on(E{fields...});
        }
    }

    const AllocatorProfile* profile_;
    std::vector<BufferType*> types_;
    std::vector<Slot> slots_;                          // per buffer id
    std::vector<DynamicAllocator> allocators_;         // per distinct buffer type
    std::vector<std::unique_ptr<VirtualBuffer>> buffers_;  // per distinct buffer type
    TensorMap<TensorRecord> hash_;
    std::vector<NodeAlloc> node_allocs_;
    std::vector<TensorAlloc> source_allocs_;  // the sources' places, node after node
    std::vector<TensorAlloc> leaf_allocs_;
    std::vector<BlockCandidate> candidates_;  // the last allocation's search, for the observer
    std::string last_error_;
    AllocationObserver* observer_ = nullptr;
};

} // namespace gallocsim
