// The file's graph in real ggml (see upstream_planner.hpp). Only upstream's own headers
// are included, from the sdist this executable's libggml-base.so was built from; the
// buffer types are ours, written against that version's ggml-backend-impl.h.
#include "fuzz/upstream/upstream_planner.hpp"

#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-backend.h"
#include "ggml.h"
#if GALLOCSIM_UPSTREAM_CGRAPH_IN_IMPL
#include "ggml-impl.h"  // struct ggml_cgraph, to append leafs and nodes (2024 versions have it in ggml.h)
#endif

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <unordered_set>

namespace gallocsim::upstream {

const UpstreamVersion& linked_version() {
    static const UpstreamVersion version{GALLOCSIM_UPSTREAM_PROFILE, GALLOCSIM_UPSTREAM_PACKAGE};
    return version;
}

const AllocatorProfile& matching_profile() {
    static const AllocatorProfile& profile = [] () -> const AllocatorProfile& {
        const AllocatorProfile* named = find_profile(linked_version().profile);
        if (named == nullptr) {
            throw std::logic_error("no gallocsim profile " + std::string(linked_version().profile));
        }
        return *named;
    }();
    return profile;
}

std::string plan_source() {
    const AllocatorProfile& profile = matching_profile();
    return profile.sources.empty() ? std::string(profile.name) + " (" + std::string(linked_version().package) + ")"
                                   : std::string(profile.sources.front());
}

std::string library_path() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&ggml_gallocr_new_n), &info) == 0 || info.dli_fname == nullptr) {
        return "(unknown)";
    }
    return info.dli_fname;
}

namespace {

// Every chunk's fake base address: non-null, aligned to any alignment a file can ask for,
// far from real memory (the planner never dereferences it). Chunks are told apart by
// their buffer, not by their base.
const std::uintptr_t kFakeBase = std::uintptr_t{1} << 40;

// Where `data: true` tensors point: a real address inside no buffer, as upstream's tests do.
alignas(128) std::byte external_data[128];

// A test buffer type as llama.cpp's tests/test-alloc.cpp makes one: our own iface
// functions, the file's alignment, max size and alloc-size rule.
struct TestType {
    ggml_backend_buffer_type buft{};
    std::string name;
    std::size_t alignment = 0;
    std::size_t max_size = 0;
    bool cuda_rule = false;
    // The file's recorded alloc sizes (a tensor's `alloc_size`), which win over the rule.
    const std::map<const ggml_tensor*, std::size_t>* recorded = nullptr;
    // The buffers the gallocr holds of this type, in allocation order: a virtual buffer
    // allocates its chunks in chunk order and frees all of them before allocating anew.
    std::vector<ggml_backend_buffer_t> live;
};

TestType& type_of(ggml_backend_buffer_type_t buft) {
    return *static_cast<TestType*>(buft->context);
}

const char* type_name(ggml_backend_buffer_type_t buft) {
    return type_of(buft).name.c_str();
}

std::size_t type_alignment(ggml_backend_buffer_type_t buft) {
    return type_of(buft).alignment;
}

std::size_t type_max_size(ggml_backend_buffer_type_t buft) {
    return type_of(buft).max_size;
}

// The graph format's `cuda` rule (docs/graph-format.md) in ggml's own terms: quantized rows
// padded to a multiple of 512 elements. Unlike ggml-cuda it does not assert nb[0] (gallocsim
// applies the rule the same way, docs/divergences.md).
std::size_t type_alloc_size(ggml_backend_buffer_type_t buft, const ggml_tensor* tensor) {
    if (const auto* recorded = type_of(buft).recorded) {
        if (const auto it = recorded->find(tensor); it != recorded->end()) {
            return it->second;
        }
    }
    constexpr std::int64_t kRowPadding = 512;
    std::size_t size = ggml_nbytes(tensor);
    if (type_of(buft).cuda_rule && ggml_is_quantized(tensor->type) && tensor->ne[0] % kRowPadding != 0) {
        size += ggml_row_size(tensor->type, kRowPadding - tensor->ne[0] % kRowPadding);
    }
    return size;
}

bool type_is_host(ggml_backend_buffer_type_t) {
    return false;
}

void* buffer_base(ggml_backend_buffer_t) {
    return reinterpret_cast<void*>(kFakeBase);
}

void free_buffer(ggml_backend_buffer_t buffer) {
    std::erase(type_of(buffer->buft).live, buffer);
}

#if GALLOCSIM_UPSTREAM_BUFFER_NAME
const char* buffer_name(ggml_backend_buffer_t buffer) {
    return type_of(buffer->buft).name.c_str();
}
#endif

ggml_backend_buffer_t alloc_buffer(ggml_backend_buffer_type_t buft, std::size_t size) {
    ggml_backend_buffer_i iface{};
    iface.free_buffer = free_buffer;
    iface.get_base = buffer_base;
#if GALLOCSIM_UPSTREAM_BUFFER_NAME
    iface.get_name = buffer_name;
#endif
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, iface, nullptr, size);
    type_of(buft).live.push_back(buffer);
    return buffer;
}

std::unique_ptr<TestType> make_type(const BufferTypeSpec& spec) {
    auto type = std::make_unique<TestType>();
    type->name = spec.name;
    type->alignment = spec.alignment;
    type->max_size = spec.max_size.value_or(SIZE_MAX);
    type->cuda_rule = spec.alloc_size == AllocSizeRule::cuda;
    type->buft.iface.get_name = type_name;
    type->buft.iface.alloc_buffer = alloc_buffer;
    type->buft.iface.get_alignment = type_alignment;
    type->buft.iface.get_max_size = type_max_size;
    type->buft.iface.get_alloc_size = type_alloc_size;
    type->buft.iface.is_host = type_is_host;
    type->buft.context = type.get();
    return type;
}

// The linked ggml's types and ops by the names graph files use (ggml's own names: types
// in lower case, ops without GGML_OP_), so that enum values that moved between versions
// never matter. A type's sizes are the linked ggml's own, so a size gallocsim got wrong
// would show as a difference.
const std::map<std::string, ggml_type, std::less<>>& ggml_types() {
    static const auto types = [] {
        std::map<std::string, ggml_type, std::less<>> map;
        for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
            if (const char* name = ggml_type_name(static_cast<ggml_type>(t)); name != nullptr) {
                std::string lower = name;  // ggml says q4_K; graph files say q4_k
                std::ranges::transform(lower, lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
                map.emplace(std::move(lower), static_cast<ggml_type>(t));
            }
        }
        return map;
    }();
    return types;
}

const std::map<std::string, ggml_op, std::less<>>& ggml_ops() {
    static const auto ops = [] {
        std::map<std::string, ggml_op, std::less<>> map;
        for (int op = 0; op < GGML_OP_COUNT; ++op) {
            if (const char* name = ggml_op_name(static_cast<ggml_op>(op)); name != nullptr) {
                map.emplace(name, static_cast<ggml_op>(op));
            }
        }
        return map;
    }();
    return ops;
}

} // namespace

bool linked_ggml_has(Op op) { return ggml_ops().contains(op_name(op)); }

// Since llama.cpp's [TAG_ALLOC_SIZE_EXPAND] (not in ggml d99724f2), ggml_backend_buft_get_alloc_size
// asserts that a buffer type gives more than ggml_nbytes only to quantized tensors, to ops
// that compute nothing (views, reshapes) and to the ops ggml_op_alloc_size_may_expand names.
bool linked_ggml_lets_alloc_size_exceed_nbytes(const Tensor& tensor) {
    using MayExpand = bool (*)(ggml_op);
    static const auto may_expand = reinterpret_cast<MayExpand>(dlsym(RTLD_DEFAULT, "ggml_op_alloc_size_may_expand"));
    if (may_expand == nullptr) {
        return true;  // a version without the rule
    }
    const auto op = ggml_ops().find(op_name(tensor.op));
    const auto type = ggml_types().find(type_name(tensor.type));
    const bool empty = tensor.op == Op::NONE || tensor.op == Op::RESHAPE || tensor.op == Op::VIEW ||
                       tensor.op == Op::PERMUTE || tensor.op == Op::TRANSPOSE;
    return empty || (type != ggml_types().end() && ggml_is_quantized(type->second)) ||
           (op != ggml_ops().end() && may_expand(op->second));
}

namespace {

std::int32_t ggml_flags(const Tensor& tensor) {
    std::int32_t flags = 0;
    if (tensor.has_flag(TensorFlag::input)) {
        flags |= GGML_TENSOR_FLAG_INPUT;
    }
    if (tensor.has_flag(TensorFlag::output)) {
        flags |= GGML_TENSOR_FLAG_OUTPUT;
    }
    if (tensor.has_flag(TensorFlag::param)) {
        flags |= GGML_TENSOR_FLAG_PARAM;
    }
    // Older versions lack these flags; the allocator reads only input and output.
#if GALLOCSIM_UPSTREAM_FLAG_LOSS
    if (tensor.has_flag(TensorFlag::loss)) {
        flags |= GGML_TENSOR_FLAG_LOSS;
    }
#endif
#if GALLOCSIM_UPSTREAM_FLAG_COMPUTE
    if (tensor.has_flag(TensorFlag::compute)) {
        flags |= GGML_TENSOR_FLAG_COMPUTE;
    }
#endif
    return flags;
}

} // namespace

struct UpstreamGraph::Impl {
    std::vector<std::unique_ptr<TestType>> types;
    std::vector<ggml_backend_buffer_type_t> ids;  // per buffer id, as ggml_gallocr_new_n takes them
    std::vector<int> node_ids, leaf_ids;          // empty: NULL, every id 0
    ggml_context* ctx = nullptr;
    ggml_cgraph* graph = nullptr;
    std::vector<ggml_tensor*> tensors;  // in file order: tensors[i] is the file's tensor i
    std::vector<bool> external;
    std::map<const ggml_tensor*, std::size_t> recorded_sizes;

    ~Impl() {
        if (ctx != nullptr) {
            ggml_free(ctx);
        }
    }

    void build(const GraphFile& file);
    void forget_memory();
    ggml_gallocr_t plan(bool& reserved, bool& allocated);
    PlanRecord record(ggml_gallocr_t galloc, bool reserved, bool allocated) const;
};

namespace {

template <typename Map>
auto lookup(const Map& map, std::string_view name, std::string_view what) {
    auto it = map.find(name);
    if (it == map.end()) {
        throw UnsupportedGraph(std::string(linked_version().package) + " has no " + std::string(what) + " " +
                               std::string(name));
    }
    return it->second;
}

// Tensors the gallocr's hash set must hold: every leaf, node, source and view source.
std::size_t referenced_tensors(const Graph& graph) {
    std::unordered_set<const Tensor*> seen;
    auto add = [&](const Tensor* t) {
        if (t != nullptr) {
            seen.insert(t);
            seen.insert(t->view_src);
        }
    };
    for (const auto* list : {&graph.leafs, &graph.nodes}) {
        for (const Tensor* t : *list) {
            add(t);
            for (const Tensor* src : t->src) {
                add(src);
            }
        }
    }
    seen.erase(nullptr);
    return seen.size();
}

} // namespace

void UpstreamGraph::Impl::build(const GraphFile& file) {
    // ggml_gallocr_reserve_n sizes its hash set for n_nodes + n_leafs + 25% (since 8a7be58d,
    // 2024-07) and aborts ("hash set full") when the graph reaches more tensors than that.
    // Before, it took the graph's own hash set, whose size this graph's capacity sets (below).
    const std::size_t listed = file.graph.nodes.size() + file.graph.leafs.size();
    const std::size_t reached = referenced_tensors(file.graph);
    if (GALLOCSIM_UPSTREAM_HASH_FROM_COUNTS && reached > listed + listed / 4) {
        throw UnsupportedGraph("more tensors than nodes + leafs + 25%: ggml_gallocr's hash set would overflow");
    }
    for (const BufferTypeSpec& spec : file.buffer_types) {
        types.push_back(make_type(spec));
    }
    for (int type : file.buffers) {
        ids.push_back(&types[static_cast<std::size_t>(type)]->buft);
    }
    node_ids = file.node_buffer_ids;
    leaf_ids = file.leaf_buffer_ids;

    const std::size_t count = file.context.size();
    const std::size_t graph_size = std::max({file.graph.nodes.size(), file.graph.leafs.size(), reached, std::size_t{1}});
    ggml_init_params params{};
    params.mem_size = ggml_tensor_overhead() * count + ggml_graph_overhead_custom(graph_size, false) + 4096;
    params.no_alloc = true;
    ctx = ggml_init(params);

    for (const Tensor& t : file.context.tensors()) {
        if (file.is_on_external_buffer(t)) {
            // Such a graph can only be sized (reserve_n_size), and this harness compares alloc_graph's places.
            throw UnsupportedGraph("tensor " + t.name + " is in a buffer without data (data: \"buffer\"): ggml only sizes such a graph");
        }
        const ggml_type type = lookup(ggml_types(), type_name(t.type), "type");
        const ggml_op op = lookup(ggml_ops(), op_name(t.op), "op");
        ggml_tensor* g = ggml_new_tensor(ctx, type, kMaxDims, t.ne.data());
        std::copy(t.nb.begin(), t.nb.end(), g->nb);
        g->op = op;
        g->flags = ggml_flags(t);
        g->view_offs = t.view_offs;
        ggml_set_name(g, t.name.c_str());
        tensors.push_back(g);
        external.push_back(file.is_external(t));
        if (const auto size = file.recorded_alloc_size(t)) {
            recorded_sizes.emplace(g, *size);
        }
    }
    for (const auto& type : types) {
        type->recorded = &recorded_sizes;
    }
    for (const Tensor& t : file.context.tensors()) {
        ggml_tensor* g = tensors[t.index];
        for (std::size_t j = 0; j < t.src.size(); ++j) {
            g->src[j] = t.src[j] != nullptr ? tensors[t.src[j]->index] : nullptr;
        }
        g->view_src = t.view_src != nullptr ? tensors[t.view_src->index] : nullptr;
    }
    graph = ggml_new_graph_custom(ctx, graph_size, false);
    for (const Tensor* leaf : file.graph.leafs) {
        graph->leafs[graph->n_leafs++] = tensors[leaf->index];
    }
    for (const Tensor* node : file.graph.nodes) {
        graph->nodes[graph->n_nodes++] = tensors[node->index];
    }
}

// What alloc_graph set is cleared, so the graph can be planned afresh.
void UpstreamGraph::Impl::forget_memory() {
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        tensors[i]->buffer = nullptr;
        tensors[i]->data = external[i] ? external_data : nullptr;
    }
}

ggml_gallocr_t UpstreamGraph::Impl::plan(bool& reserved, bool& allocated) {
    forget_memory();
    ggml_gallocr_t galloc = ggml_gallocr_new_n(ids.data(), static_cast<int>(ids.size()));
    reserved = ggml_gallocr_reserve_n(galloc, graph, node_ids.empty() ? nullptr : node_ids.data(),
                                      leaf_ids.empty() ? nullptr : leaf_ids.data());
    allocated = reserved && ggml_gallocr_alloc_graph(galloc, graph);
    return galloc;
}

PlanRecord UpstreamGraph::Impl::record(ggml_gallocr_t galloc, bool reserved, bool allocated) const {
    PlanRecord plan;
    plan.source = plan_source();
    plan.reserve = reserved;
    plan.alloc_graph = allocated;
    // A tensor's buffer id is the lowest id of its buffer type (the graph format's rule).
    auto lowest_id = [&](ggml_backend_buffer_type_t buft) {
        return static_cast<int>(std::ranges::find(ids, buft) - ids.begin());
    };
    for (int id = 0; id < static_cast<int>(ids.size()); ++id) {
        plan.buffer_sizes.push_back(ggml_gallocr_get_buffer_size(galloc, id));
        std::vector<std::size_t> chunks;
        if (lowest_id(ids[static_cast<std::size_t>(id)]) == id) {
            for (ggml_backend_buffer_t buffer : type_of(ids[static_cast<std::size_t>(id)]).live) {
                chunks.push_back(ggml_backend_buffer_get_size(buffer));
            }
        }
        plan.chunk_sizes.push_back(std::move(chunks));
    }
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const ggml_tensor* t = tensors[i];
        if (t->buffer == nullptr || std::ranges::find(ids, t->buffer->buft) == ids.end()) {
            continue;  // external memory, or none
        }
        const auto& live = type_of(t->buffer->buft).live;
        const auto chunk = std::ranges::find(live, t->buffer);
        // A buffer the type never saw: ggml's dummy for a zero-size chunk (it does not ask
        // the buffer type for 0 bytes). Reported as chunk -1 so that it cannot pass unseen.
        const bool seen = chunk != live.end();
        const auto data = reinterpret_cast<std::uintptr_t>(t->data);
        plan.tensors.push_back({static_cast<TensorId>(i),  // tensors[i] was made for the file's tensor i
                                Placement{lowest_id(t->buffer->buft), seen ? static_cast<int>(chunk - live.begin()) : -1,
                                          seen ? data - kFakeBase : data}});
    }
    return plan;
}

UpstreamGraph::UpstreamGraph(const GraphFile& file) : impl_(std::make_unique<Impl>()) {
    impl_->build(file);
}

UpstreamGraph::~UpstreamGraph() = default;

PlanRecord UpstreamGraph::plan() {
    bool reserved = false;
    bool allocated = false;
    ggml_gallocr_t galloc = impl_->plan(reserved, allocated);
    PlanRecord record = impl_->record(galloc, reserved, allocated);
    ggml_gallocr_free(galloc);
    return record;
}

bool UpstreamGraph::plan_bare() {
    bool reserved = false;
    bool allocated = false;
    ggml_gallocr_t galloc = impl_->plan(reserved, allocated);
    ggml_gallocr_free(galloc);
    return allocated;
}

} // namespace gallocsim::upstream
