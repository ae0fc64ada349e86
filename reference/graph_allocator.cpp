#include "reference/graph_allocator.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace gallocsim {
namespace {

std::size_t offset_in(const Buffer& buffer, const void* data) {
    return reinterpret_cast<std::uintptr_t>(data) - reinterpret_cast<std::uintptr_t>(buffer.base());
}

int id_at(std::span<const int> ids, std::size_t i) {
    return ids.empty() ? 0 : ids[i];
}

template <typename F>
void for_each_src(const Tensor& tensor, F&& f) {
    for (Tensor* src : tensor.src) {
        if (src != nullptr) {
            f(src);
        }
    }
}

} // namespace

// --- VirtualBuffer ------------------------------------------------------------------

std::unique_ptr<VirtualBuffer> VirtualBuffer::allocate(BufferType& type, std::span<const std::size_t> chunk_sizes,
                                                       BufferUsage usage, const AllocatorProfile& profile) {
    auto buffer = std::make_unique<VirtualBuffer>();
    const auto zero = profile.empty_buffers_are_dummies ? BufferType::ZeroSize::dummy : BufferType::ZeroSize::from_type;
    for (std::size_t size : chunk_sizes) {
        auto memory = type.allocate(size, zero);
        if (!memory) {
            return nullptr;
        }
        memory->set_usage(usage);
        buffer->chunks_.push_back(std::move(memory));
    }
    return buffer;
}

std::size_t VirtualBuffer::size() const {
    std::size_t total = 0;
    for (const auto& chunk : chunks_) {
        total += chunk->size();
    }
    return total;
}

std::size_t VirtualBuffer::chunk_size(int chunk) const {
    return chunk < chunk_count() ? chunks_[static_cast<std::size_t>(chunk)]->size() : 0;
}

Buffer* VirtualBuffer::chunk(int chunk) const {
    return chunk >= 0 && chunk < chunk_count() ? chunks_[static_cast<std::size_t>(chunk)].get() : nullptr;
}

void VirtualBuffer::reset() {
    for (auto& chunk : chunks_) {
        chunk->reset();
    }
}

// --- GraphAllocator: construction and queries ---------------------------------------

GraphAllocator::GraphAllocator(BufferType& type, const AllocatorProfile& profile)
    : GraphAllocator(std::span<BufferType* const>(std::array{&type}), profile) {}

GraphAllocator::GraphAllocator(std::span<BufferType* const> types, const AllocatorProfile& profile) : profile_(&profile) {
    if (types.empty()) {
        throw std::invalid_argument("a graph allocator needs at least one buffer type");
    }
    for (BufferType* type : types) {
        if (type == nullptr) {
            throw std::invalid_argument("null buffer type");
        }
        // The same buffer type used again shares the earlier id's allocator and buffer.
        auto earlier = std::ranges::find(types_, type);
        if (earlier != types_.end()) {
            slots_.push_back(slots_[static_cast<std::size_t>(earlier - types_.begin())]);
        } else {
            slots_.push_back({static_cast<int>(allocators_.size())});
            allocators_.emplace_back(type->alignment(), profile.planning_max_size(type->max_size()), profile.fit_rules());
            buffers_.emplace_back();
        }
        types_.push_back(type);
    }
}

const DynamicAllocator& GraphAllocator::allocator(int buffer_id) const {
    return allocators_.at(static_cast<std::size_t>(slots_.at(static_cast<std::size_t>(buffer_id)).allocator));
}

int GraphAllocator::canonical_buffer_id(int buffer_id) const {
    const int allocator = slots_.at(static_cast<std::size_t>(buffer_id)).allocator;
    for (int id = 0;; ++id) {
        if (slots_[static_cast<std::size_t>(id)].allocator == allocator) {
            return id;
        }
    }
}

std::size_t GraphAllocator::buffer_size(int buffer_id) const {
    const auto& buffer = buffers_.at(static_cast<std::size_t>(slots_.at(static_cast<std::size_t>(buffer_id)).allocator));
    // Only the first id of a shared buffer reports its size, so totals do not double count.
    if (!buffer || canonical_buffer_id(buffer_id) != buffer_id) {
        return 0;
    }
    return buffer->size();
}

std::vector<std::size_t> GraphAllocator::chunk_sizes(int buffer_id) const {
    std::vector<std::size_t> sizes;
    const auto& buffer = buffers_.at(static_cast<std::size_t>(slots_.at(static_cast<std::size_t>(buffer_id)).allocator));
    if (buffer && canonical_buffer_id(buffer_id) == buffer_id) {
        for (int c = 0; c < buffer->chunk_count(); ++c) {
            sizes.push_back(buffer->chunk_size(c));
        }
    }
    return sizes;
}

std::optional<Placement> GraphAllocator::locate(const Tensor& tensor) const {
    if (tensor.buffer == nullptr) {
        return std::nullopt;
    }
    for (std::size_t k = 0; k < buffers_.size(); ++k) {
        if (!buffers_[k]) {
            continue;
        }
        for (int c = 0; c < buffers_[k]->chunk_count(); ++c) {
            const Buffer* chunk = buffers_[k]->chunk(c);
            if (chunk == tensor.buffer) {
                const auto id = std::ranges::find(slots_, static_cast<int>(k), &Slot::allocator) - slots_.begin();
                return Placement{static_cast<int>(id), c, offset_in(*chunk, tensor.data)};
            }
        }
    }
    return std::nullopt;
}

bool GraphAllocator::fail(std::string message) {
    last_error_ = std::move(message);
    return false;
}

// --- Planning -----------------------------------------------------------------------

bool GraphAllocator::is_allocated(const Tensor& tensor, const HashNode& record) const {
    return tensor.data != nullptr  // data set externally
        || (tensor.buffer != nullptr && profile_->external_buffer_is_allocated)  // on an external buffer, not yet allocated
        || record.allocated;         // the allocator holds memory for it
}

bool GraphAllocator::check_buffer_ids(const Graph& graph, std::span<const int> node_ids, std::span<const int> leaf_ids) {
    auto check = [&](std::span<const int> ids, std::size_t expected, const char* what) {
        if (!ids.empty() && ids.size() != expected) {
            return fail(std::string(what) + " buffer ids: " + std::to_string(ids.size()) + " given for " +
                        std::to_string(expected) + " tensors");
        }
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (ids[i] < 0 || ids[i] >= buffer_count()) {
                return fail(std::string(what) + " " + std::to_string(i) + " has buffer id " + std::to_string(ids[i]) +
                            ", but there are " + std::to_string(buffer_count()) + " buffers");
            }
        }
        return true;
    };
    return check(node_ids, graph.nodes.size(), "node") && check(leaf_ids, graph.leafs.size(), "leaf");
}

bool GraphAllocator::reserve_n(const Graph& graph, std::span<const int> node_ids, std::span<const int> leaf_ids) {
    return plan(graph, node_ids, leaf_ids, /*measure_only=*/false);
}

std::optional<std::vector<std::size_t>> GraphAllocator::reserve_n_size(const Graph& graph, std::span<const int> node_ids,
                                                                       std::span<const int> leaf_ids) {
    if (!profile_->has_reserve_n_size) {
        fail("ggml_gallocr_reserve_n_size does not exist in " + std::string(profile_->name) +
             " (it came with ggml 0a2b6b20, llama.cpp #16653)");
        return std::nullopt;
    }
    if (!plan(graph, node_ids, leaf_ids, /*measure_only=*/true)) {
        return std::nullopt;
    }
    // As upstream: every id reports its allocator's total, so ids sharing a type repeat it.
    std::vector<std::size_t> sizes;
    for (int id = 0; id < buffer_count(); ++id) {
        sizes.push_back(allocator(id).total_high_water());
    }
    return sizes;
}

bool GraphAllocator::plan(const Graph& graph, std::span<const int> node_ids, std::span<const int> leaf_ids,
                          bool measure_only) {
    last_error_.clear();
    if (!check_buffer_ids(graph, node_ids, leaf_ids)) {
        return false;
    }
    // Records are made as tensors are first met. A graph built in one context holds about
    // as many tensors as it lists; tensors past that go to the map's overflow table.
    hash_.reset(graph.leafs.size() + graph.nodes.size() + kTensorsPerStep, kTensorsPerStep);
    emit<Observed<event::PlanStarted>>(measure_only);
    try {
        for (auto& allocator : allocators_) {
            allocator.reset();
        }
        plan_graph(graph, node_ids, leaf_ids);
    } catch (const AllocatorError& error) {
        emit<Observed<event::PlanFinished>>(false);
        return fail(std::string("graph allocation failed: ") + error.what());
    }
    record_plan(graph);
    const bool ok = allocate_buffers(measure_only);
    emit<Observed<event::PlanFinished>>(ok);
    return ok;
}

void GraphAllocator::plan_graph(const Graph& graph, std::span<const int> node_ids, std::span<const int> leaf_ids) {
    // Leafs first: they may be used by anything, and the application may want them anyway.
    for (std::size_t i = 0; i < graph.leafs.size(); ++i) {
        make_room_for_step();
        allocate_tensor(graph.leafs[i], id_at(leaf_ids, i), AllocationPhase::leaf);
    }
    emit<Observed<event::CountingStarted>>();
    count_consumers(graph, node_ids);
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const Tensor* node = graph.nodes[i];
        const int buffer_id = id_at(node_ids, i);
        make_room_for_step();
        emit<Observed<event::NodeStarted>>(node, i);
        // Only leafs and inputs can be unallocated parents at this point.
        for_each_src(*node, [&](const Tensor* parent) { allocate_tensor(parent, buffer_id, AllocationPhase::parent); });
        allocate_tensor(node, buffer_id, AllocationPhase::node);
        release_parents(*node);
    }
}

// Counts each tensor's consumers and views, and allocates graph inputs up front so that
// nothing planned later can take their memory before they are read.
void GraphAllocator::count_consumers(const Graph& graph, std::span<const int> node_ids) {
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const Tensor* node = graph.nodes[i];
        make_room_for_step();
        // An op NONE node only adds dependencies (ggml-backend uses it so); its view
        // source does not count.
        if (node->is_view() && node->op != Op::NONE) {
            HashNode& source = node_of(node->view_src);
            source.views += 1;
            emit<Observed<event::ViewCounted>>(node->view_src, node, source.views);
        }
        if (node->has_flag(TensorFlag::input)) {
            allocate_tensor(node, id_at(node_ids, i), AllocationPhase::graph_input);
        }
        for_each_src(*node, [&](const Tensor* src) {
            HashNode& record = node_of(src);
            record.children += 1;
            emit<Observed<event::ConsumerCounted>>(src, node, record.children);
            if (src->has_flag(TensorFlag::input)) {
                allocate_tensor(src, id_at(node_ids, i), AllocationPhase::graph_input);
            }
        });
    }
}

// A step of planning holds references to the records of one tensor, its sources and their
// view sources while it looks up others. Room for all of them is made before the step, so
// that a tensor met for the first time never moves the records already held.
void GraphAllocator::make_room_for_step() {
    hash_.make_room(kTensorsPerStep);
}

std::size_t GraphAllocator::alloc_size_of(const Tensor& tensor, TensorRecord& record) {
    if (record.alloc_size == 0) {
        record.alloc_size = types_[static_cast<std::size_t>(record.buffer_id)]->alloc_size(tensor);
    }
    return record.alloc_size;
}

void GraphAllocator::allocate_tensor(const Tensor* tensor, int buffer_id, AllocationPhase phase) {
    TensorRecord& record = node_of(tensor);
    if (is_allocated(*tensor, record) || tensor->is_view()) {
        return;
    }
    record.allocated = true;
    // A tensor met again after its memory went to a node in place, or was freed (a node read it
    // before it ran): upstream gives it memory a second time, and only the last place counts.
    const bool placed_before = std::exchange(record.placed, true);
    const int previous_buffer = record.buffer_id;
    const BufferAddress previous_address = record.address;
    auto report_if_placed_again = [&] {
        if (placed_before) {
            emit<Observed<event::TensorPlacedAgain>>(tensor, phase, previous_buffer, previous_address.chunk,
                                                     previous_address.offset);
        }
    };
    if (profile_->can_inplace(tensor->op) && try_inplace(tensor, record)) {
        report_if_placed_again();
        return;
    }
    const std::size_t size = types_[static_cast<std::size_t>(buffer_id)]->alloc_size(*tensor);
    candidates_.clear();
    const AllocationDecision decision = allocator_of(buffer_id).allocate(size, observer_ ? &candidates_ : nullptr);
    record.buffer_id = buffer_id;
    record.address = decision.address;
    record.alloc_size = size;
    if (decision.choice == BlockChoice::new_chunk) {
        emit<Observed<event::ChunkCreated>>(buffer_id, decision.address.chunk, decision.block_before.size, tensor,
                                            decision.size, decision.chunk_size);
    }
    emit<Observed<event::TensorAllocated>>(tensor, buffer_id, phase, size,
                                           ObservedRefs::Taken{decision, candidates_});
    report_if_placed_again();
}

// A node whose op may run in place takes over the memory of a parent that nothing else
// will read: the parent must be ours, not an output, laid out exactly like the node, and
// this node must be its last consumer with no views left.
bool GraphAllocator::try_inplace(const Tensor* node, TensorRecord& record) {
    for (const Tensor* parent : node->src) {
        // A node naming itself as a source (graph files allow it, as ggml_cast's CPY does)
        // is no parent to take over: upstream, marked allocated just above, it passes the
        // checks and takes its own unset address (docs/divergences.md).
        if (parent == nullptr || parent == node) {
            continue;
        }
        TensorRecord& parent_record = node_of(parent);
        auto reject = [&](InPlaceRejection reason) {
            emit<Observed<event::InPlaceRejected>>(node, parent, reason, parent_record.children, parent_record.views);
        };
        // A view owns no memory; a policy may look through a view that shows its whole source
        // (a RESHAPE: same start, same bytes) to the source (upstream's view branch below, made
        // reachable). A partial view is refused: the node would take more than it replaces.
        const bool through_view = profile_->inplace_through_views && parent->is_view() && parent->view_offs == 0 &&
                                  nbytes(*parent) == nbytes(*parent->view_src) && node_of(parent->view_src).allocated;
        if (!parent_record.allocated && !through_view) {
            reject(InPlaceRejection::not_owned);
            continue;
        }
        if (parent->has_flag(TensorFlag::output) ||
            (parent->view_src != nullptr && parent->view_src->has_flag(TensorFlag::output))) {
            reject(InPlaceRejection::output);
            continue;
        }
        if (!same_layout(*node, *parent)) {
            reject(InPlaceRejection::different_layout);
            continue;
        }
        if (parent_record.children != 1 || parent_record.views != 0) {
            reject(InPlaceRejection::other_consumers);
            continue;
        }
        const Tensor* owner = parent;
        TensorRecord* owner_record = &parent_record;
        if (parent->is_view()) {
            // Upstream keeps this branch, but a view is never "own" (views are not
            // allocated), so the ownership check above always skips it first, unless a
            // policy sets inplace_through_views.
            TensorRecord& source = node_of(parent->view_src);
            if (source.views != 1 || source.children != 0 || parent->view_src->data != parent->data) {
                reject(InPlaceRejection::view_source_busy);
                continue;
            }
            source.allocated = false;
            owner = parent->view_src;
            owner_record = &source;
        }
        // The owner's place: the parent's own, or (through a view) its source's.
        record.buffer_id = owner_record->buffer_id;
        record.address = owner_record->address;
        record.alloc_size = types_[static_cast<std::size_t>(record.buffer_id)]->alloc_size(*node);
        parent_record.allocated = false;  // so that releasing the parent does not free the node's memory
        emit<Observed<event::InPlaceReused>>(node, parent, owner != parent ? owner : nullptr, record.buffer_id, record.address,
                                  record.alloc_size);
        if (profile_->free_extra_space != ExtraSpace::kept) {
            free_extra_space(*node, record, *owner, *owner_record);
        }
        return true;
    }
    return false;
}

// When a node reuses a larger parent in place, the bytes past the node's end go back to
// the free list: since 3129a944 both sizes aligned first (so later blocks stay aligned),
// before it from the node's own end, which an unaligned size leaves unaligned (the freed
// size is still aligned up, as every free's is, and may reach past the parent's end).
void GraphAllocator::free_extra_space(const Tensor& node, const TensorRecord& record, const Tensor& parent,
                                      TensorRecord& parent_record) {
    std::size_t parent_size = alloc_size_of(parent, parent_record);
    std::size_t node_size = record.alloc_size;
    if (parent_size < node_size) {
        throw AllocatorError("in-place node " + node.name + " needs more bytes than its parent " + parent.name);
    }
    DynamicAllocator& allocator = allocator_of(parent_record.buffer_id);
    if (profile_->free_extra_space == ExtraSpace::freed_aligned) {
        parent_size = align_up(parent_size, allocator.alignment());
        node_size = align_up(node_size, allocator.alignment());
    }
    if (parent_size > node_size) {
        BufferAddress extra = parent_record.address;
        extra.offset += node_size;
        FreeDecision decision = allocator.free(extra, parent_size - node_size);
        emit<Observed<event::ExtraSpaceFreed>>(&node, &parent, parent_record.buffer_id, decision);
    }
}

// After a node runs, each parent has one consumer fewer; a parent with no consumers and
// no views left is freed (a view parent releases its source instead).
void GraphAllocator::release_parents(const Tensor& node) {
    for_each_src(node, [&](const Tensor* parent) {
        TensorRecord& record = node_of(parent);
        record.children -= 1;
        emit<Observed<event::ParentReleased>>(&node, parent, record.children, record.views, record.allocated);
        if (record.children != 0 || record.views != 0) {
            return;
        }
        if (parent->is_view()) {
            TensorRecord& source = node_of(parent->view_src);
            source.views -= 1;
            emit<Observed<event::ViewReleased>>(parent, parent->view_src, source.children, source.views);
            if (source.views == 0 && source.children == 0 && source.allocated) {
                free_tensor(*parent->view_src, source, FreeReason::last_view);
            }
        } else if (record.allocated) {
            free_tensor(*parent, record, FreeReason::last_consumer);
        }
    });
}

void GraphAllocator::free_tensor(const Tensor& tensor, TensorRecord& record, FreeReason reason) {
    if (tensor.has_flag(TensorFlag::output)) {
        emit<Observed<event::OutputKept>>(&tensor, reason);  // graph outputs are never freed
        return;
    }
    const std::size_t size = alloc_size_of(tensor, record);
    FreeDecision decision = allocator_of(record.buffer_id).free(record.address, size);
    record.allocated = false;
    emit<Observed<event::TensorFreed>>(&tensor, record.buffer_id, reason, size, decision);
}

TensorAlloc GraphAllocator::tensor_alloc_of(const Tensor& tensor) {
    if (tensor.view_src != nullptr || tensor.data != nullptr) {
        return {};
    }
    TensorRecord& record = node_of(&tensor);
    return {record.buffer_id, record.address, alloc_size_of(tensor, record)};
}

// The plan alloc_graph replays: for each node its own and its sources' places, for each
// leaf its place (views, external tensors and missing sources have none).
void GraphAllocator::record_plan(const Graph& graph) {
    node_allocs_.clear();
    node_allocs_.reserve(graph.nodes.size());
    source_allocs_.clear();
    source_allocs_.reserve(2 * graph.nodes.size());
    for (const Tensor* node : graph.nodes) {
        const auto last = std::find_if(node->src.rbegin(), node->src.rend(), [](const Tensor* s) { return s != nullptr; });
        const auto count = static_cast<std::uint32_t>(node->src.rend() - last);
        node_allocs_.push_back({tensor_alloc_of(*node), static_cast<std::uint32_t>(source_allocs_.size()), count});
        for (std::uint32_t j = 0; j < count; ++j) {
            const Tensor* src = node->src[j];
            source_allocs_.push_back(src ? tensor_alloc_of(*src) : TensorAlloc{});
        }
    }
    leaf_allocs_.clear();
    leaf_allocs_.reserve(graph.leafs.size());
    for (const Tensor* leaf : graph.leafs) {
        leaf_allocs_.push_back(tensor_alloc_of(*leaf));
    }
}

// A buffer is (re)allocated when it is missing or any chunk of the new plan is larger
// than the chunk it has (before b3f27f37: when the plan's total is larger than the
// buffer); a buffer with no tensors is still made, so views can be set up.
bool GraphAllocator::allocate_buffers(bool measure_only) {
    for (std::size_t k = 0; k < allocators_.size(); ++k) {
        const DynamicAllocator& plan = allocators_[k];
        auto& buffer = buffers_[k];
        const int buffer_id = static_cast<int>(std::ranges::find(slots_, static_cast<int>(k), &Slot::allocator) - slots_.begin());
        bool realloc = buffer == nullptr;
        std::vector<std::size_t> chunk_sizes;
        for (int c = 0; c < plan.chunk_count(); ++c) {
            chunk_sizes.push_back(plan.chunk_high_water(c));
            if (plan.chunk_high_water(c) > (buffer ? buffer->chunk_size(c) : 0)) {
                realloc = true;
            }
        }
        if (profile_->reallocation == Reallocation::when_total_grows && buffer != nullptr) {
            realloc = plan.total_high_water() > buffer->size();
        }
        // Before chunks, a buffer type's one buffer was allocated whatever its plan held.
        if (!profile_->chunks && chunk_sizes.empty()) {
            chunk_sizes.push_back(0);
        }
        const std::size_t previous_size = buffer ? buffer->size() : 0;
        if (!realloc) {
            emit<Observed<event::BufferAllocated>>(buffer_id, chunk_sizes, previous_size, false, true);
            continue;
        }
        buffer.reset();
        if (measure_only) {
            continue;
        }
        buffer = VirtualBuffer::allocate(*types_[static_cast<std::size_t>(buffer_id)], chunk_sizes, BufferUsage::compute, *profile_);
        const bool ok = buffer != nullptr;
        emit<Observed<event::BufferAllocated>>(buffer_id, chunk_sizes, previous_size, true, ok);
        if (!ok) {
            std::size_t total = 0;
            for (std::size_t size : chunk_sizes) {
                total += size;
            }
            return fail("failed to allocate " + std::string(types_[static_cast<std::size_t>(buffer_id)]->name()) +
                        " buffer of size " + std::to_string(total));
        }
    }
    return true;
}

// --- Allocation ---------------------------------------------------------------------

// ggml_gallocr_node_needs_realloc, named for what it answers: does the recorded place
// still hold this tensor?
static bool still_fits(const std::vector<BufferType*>& types, const Tensor& tensor, const TensorAlloc& alloc) {
    std::size_t size = 0;
    if (tensor.data == nullptr && tensor.view_src == nullptr) {
        if (alloc.buffer_id < 0) {
            return false;  // it had external data when planned, and has none now
        }
        size = types[static_cast<std::size_t>(alloc.buffer_id)]->alloc_size(tensor);
    }
    return alloc.size_max >= size;
}

TensorAlloc GraphAllocator::source_alloc(std::size_t node, int j) const {
    return source_place(node_allocs_.at(node), j);
}

bool GraphAllocator::needs_realloc(const Graph& graph) const {
    if (node_allocs_.size() != graph.nodes.size() || leaf_allocs_.size() != graph.leafs.size()) {
        return true;
    }
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const Tensor& node = *graph.nodes[i];
        const NodeAlloc& places = node_allocs_[i];
        if (!still_fits(types_, node, places.dst)) {
            return true;
        }
        for (int j = 0; j < kMaxSrc; ++j) {
            const Tensor* src = node.src[static_cast<std::size_t>(j)];
            if (src != nullptr && !still_fits(types_, *src, source_place(places, j))) {
                return true;
            }
        }
    }
    return false;
}

// A tensor that had external data when planned (no place) and has none now, met by
// needs_realloc before anything that answers yes: upstream before 1e04f6ae (#13222) asks a
// null buffer type for its size there and crashes.
static const Tensor* lost_external_data(const Graph& graph, std::span<const NodeAlloc> nodes,
                                        const GraphAllocator& allocator, const std::vector<BufferType*>& types) {
    if (nodes.size() != graph.nodes.size()) {
        return nullptr;  // needs_realloc stops at the count first
    }
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        for (int j = -1; j < kMaxSrc; ++j) {
            const Tensor* tensor = j < 0 ? graph.nodes[i] : graph.nodes[i]->src[static_cast<std::size_t>(j)];
            const TensorAlloc place = j < 0 ? nodes[i].dst : allocator.source_alloc(i, j);
            if (tensor == nullptr) {
                continue;
            }
            if (tensor->data == nullptr && tensor->view_src == nullptr && place.buffer_id < 0) {
                return tensor;
            }
            if (!still_fits(types, *tensor, place)) {
                return nullptr;  // needs_realloc answers yes here, before the crash
            }
        }
    }
    return nullptr;
}

bool GraphAllocator::alloc_graph(Graph& graph) {
    last_error_.clear();
    if (!profile_->replans_when_data_dropped && leaf_allocs_.size() == graph.leafs.size()) {
        if (const Tensor* lost = lost_external_data(graph, node_allocs_, *this, types_)) {
            return fail("tensor " + lost->name + " had external data when the graph was planned and has none now: " +
                        std::string(profile_->name) + " crashes here (later versions plan again, 1e04f6ae, #13222)");
        }
    }
    // Upstream trusts the buffers to exist; after reserve_n_size or a failed reserve they
    // do not, so a missing buffer counts as needing a new plan here.
    const bool graph_empty = graph.nodes.empty() && graph.leafs.empty();
    const bool buffers_missing =
        !graph_empty && std::ranges::any_of(buffers_, [](const auto& b) { return b == nullptr; });
    if (needs_realloc(graph) || buffers_missing) {
        if (buffer_count() != 1) {
            return fail("the graph needs a new plan and there are " + std::to_string(buffer_count()) +
                        " buffers: call reserve_n with the buffer ids first");
        }
        if (!reserve(graph)) {
            return false;
        }
    }
    for (auto& buffer : buffers_) {
        if (buffer) {
            buffer->reset();
        }
    }
    // needs_realloc checks nodes and their sources against their places, but not leafs
    // (as upstream): a leaf that grew may still fit its buffer, or may not.
    for (std::size_t i = 0; i < graph.leafs.size(); ++i) {
        if (!init_tensor(*graph.leafs[i], leaf_allocs_[i], SizeChecked::no)) {
            return false;
        }
    }
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        Tensor& node = *graph.nodes[i];
        const NodeAlloc& places = node_allocs_[i];
        for (int j = 0; j < kMaxSrc; ++j) {
            Tensor* src = node.src[static_cast<std::size_t>(j)];
            if (src != nullptr && !init_tensor(*src, source_place(places, j), SizeChecked::yes)) {
                return false;
            }
        }
        if (!init_tensor(node, places.dst, SizeChecked::yes)) {
            return false;
        }
    }
    return true;
}

// ggml refuses to make a view that reaches past its source (ggml_new_tensor_impl asserts),
// but a graph built another way could hold one. Planning never touches a view's bytes, so
// the view is refused where it would get them: memory past the source is not the view's.
static std::string view_reaching_past_source(const Tensor& view) {
    if (lies_within_source(view)) {
        return {};
    }
    return "view " + view.name + " (" + std::to_string(nbytes(view)) + " bytes at offset " +
           std::to_string(view.view_offs) + ") reaches past its source " + view.view_src->name + " (" +
           std::to_string(nbytes(*view.view_src)) + " bytes)";
}

bool GraphAllocator::init_tensor(Tensor& tensor, const TensorAlloc& alloc, SizeChecked checked) {
    if (tensor.view_src != nullptr) {
        if (tensor.buffer != nullptr) {
            return true;  // already set up
        }
        if (auto error = view_reaching_past_source(tensor); !error.empty()) {
            return fail(error);
        }
        if (tensor.view_src->buffer == nullptr) {
            return true;  // its source has memory from outside (external data)
        }
        if (auto error = init_view(tensor); !error.empty()) {
            return fail(error + " (upstream aborts here)");
        }
        if (observer_) {
            const auto placement = locate(tensor);
            emit<Observed<event::TensorInitialised>>(&tensor, -1, placement ? BufferAddress{placement->chunk, placement->offset} : kInvalidAddress,
                                          tensor.data);
        }
        return true;
    }
    if (tensor.data != nullptr) {
        return true;  // external data, or already placed
    }
    if (alloc.buffer_id < 0 || alloc.address == kInvalidAddress) {
        return fail("tensor " + tensor.name + " has no planned address");
    }
    const auto& buffer = buffers_[static_cast<std::size_t>(slots_[static_cast<std::size_t>(alloc.buffer_id)].allocator)];
    Buffer* chunk = buffer ? buffer->chunk(alloc.address.chunk) : nullptr;
    if (chunk == nullptr) {
        const std::string where = "tensor " + tensor.name + " is planned in chunk " + std::to_string(alloc.address.chunk) +
                                  " of buffer " + std::to_string(alloc.buffer_id);
        if (buffer == nullptr) {
            return fail(where + ", which was not allocated");
        }
        // Kept because no chunk grew (allocate_buffers): the plan's new last chunk holds only
        // zero bytes. Upstream passes the missing chunk, null, to ggml_backend_buffer_get_base.
        return fail(where + ", which the buffer kept from an earlier plan lacks: a new chunk of zero bytes "
                            "does not make a buffer grow (upstream aborts here)");
    }
    const std::size_t size = checked == SizeChecked::yes ? alloc.size_max : chunk->alloc_size(tensor);
    if (auto error = place_tensor(*chunk, tensor, alloc.address.offset, size); !error.empty()) {
        return fail(error + " (upstream aborts here)");
    }
    emit<Observed<event::TensorInitialised>>(&tensor, alloc.buffer_id, alloc.address, tensor.data);
    return true;
}

} // namespace gallocsim
