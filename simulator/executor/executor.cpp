#include "simulator/executor/executor.hpp"

#include "reference/dynamic_allocator.hpp"
#include "simulator/executor/graph_tensors.hpp"
#include "simulator/executor/node_args.hpp"
#include "simulator/executor/runners.hpp"

#ifdef GALLOCSIM_HAVE_CUDA
#include "reference/cuda_buffer.hpp"
#endif

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

namespace gallocsim {
namespace {

bool is_device_buffer([[maybe_unused]] const Buffer& buffer) {
#ifdef GALLOCSIM_HAVE_CUDA
    return is_cuda_buffer(buffer);
#else
    return false;
#endif
}

bool lives_on(Backend backend, const Buffer& buffer) {
    const bool device = is_device_buffer(buffer);
    return backend == Backend::cuda ? device : !device && buffer.is_addressable();
}

// What the buffer type last reported, for CUDA types (they say what CUDA said).
std::string type_detail([[maybe_unused]] const BufferType& type) {
#ifdef GALLOCSIM_HAVE_CUDA
    if (const auto* cuda = dynamic_cast<const CudaBufferType*>(&type); cuda != nullptr && !cuda->last_error().empty()) {
        return ": " + cuda->last_error();
    }
#endif
    return {};
}

std::string run_kernel(Backend backend, const kernels::NodeArgs& args) {
    if (backend == Backend::cpu) {
        return run_node_on_cpu(args);
    }
#ifdef GALLOCSIM_HAVE_CUDA
    return run_node_on_cuda(args);
#else
    return "this build has no CUDA backend";
#endif
}

// A tensor whose data lies in no buffer: the allocator left it alone, and its address may
// be a placeholder that must never be dereferenced.
bool has_outside_memory(const Tensor& tensor) {
    return !tensor.is_view() && tensor.data != nullptr && tensor.buffer == nullptr;
}

struct OutsideMemory {
    std::unique_ptr<Buffer> buffer;
    std::unordered_set<const Tensor*> tensors;
    std::string error;
};

// One buffer of the backend for every tensor with outside memory, each at an aligned
// offset; then their views take addresses in it.
OutsideMemory bind_outside_memory(std::span<Tensor* const> tensors, BufferType& type) {
    OutsideMemory memory;
    std::vector<std::pair<Tensor*, std::size_t>> places;
    std::size_t size = 0;
    for (Tensor* tensor : tensors) {
        if (has_outside_memory(*tensor)) {
            places.emplace_back(tensor, size);
            size = align_up(size + type.alloc_size(*tensor), type.alignment());
        }
    }
    if (places.empty()) {
        return memory;
    }
    // At least one byte: a zero-size buffer has no base, and zero-byte tensors need an address too.
    memory.buffer = type.allocate(std::max<std::size_t>(size, 1));
    if (!memory.buffer) {
        memory.error = "cannot allocate " + std::to_string(size) + " bytes of " + std::string(type.name()) +
                       " memory for the tensors with outside memory" + type_detail(type);
        return memory;
    }
    memory.buffer->set_usage(BufferUsage::weights);
    for (const auto& [tensor, offset] : places) {
        tensor->data = nullptr;
        if (auto error = place_tensor(*memory.buffer, *tensor, offset); !error.empty()) {
            memory.error = error;
            return memory;
        }
        memory.tensors.insert(tensor);
    }
    for (Tensor* tensor : tensors) {
        if (tensor->is_view() && tensor->buffer == nullptr && tensor->view_src->buffer == memory.buffer.get()) {
            tensor->data = nullptr;
            if (auto error = init_view(*tensor); !error.empty()) {
                memory.error = error;
                return memory;
            }
        }
    }
    return memory;
}

std::string check_memory(Backend backend, std::span<Tensor* const> tensors) {
    for (const Tensor* tensor : tensors) {
        const std::size_t size = nbytes(*tensor);
        if (size == 0) {
            continue;  // nothing to read or write
        }
        if (tensor->data == nullptr || tensor->buffer == nullptr) {
            return "tensor " + tensor->name + " has no memory: plan the graph first (alloc_graph)";
        }
        if (!lives_on(backend, *tensor->buffer)) {
            return "tensor " + tensor->name + " lives in a " + std::string(tensor->buffer->type().name()) +
                   " buffer, which is not " + std::string(backend_name(backend)) + " memory the executor can use";
        }
        if (!tensor->buffer->contains(tensor->data, size)) {
            return "tensor " + tensor->name + " (" + std::to_string(size) + " bytes) reaches outside its buffer";
        }
    }
    return {};
}

// When each tensor is filled, when its memory is dead, and what the results are.
struct Schedule {
    std::vector<Tensor*> fill_first;
    std::vector<std::vector<Tensor*>> fill_before;  // per node
    std::vector<std::vector<Tensor*>> dead_after;   // per node: roots no later node touches
    std::vector<Tensor*> results;
};

// The nodes that first and last touch (read, write or view) each root's memory, and the
// tensors some node reads. A node that reads itself (ggml_cast's CPY names its result as
// src[1]) counts as read: gallocr frees it as soon as it has run, unless it is an output.
struct Touches {
    std::unordered_map<const Tensor*, std::size_t> first;
    std::unordered_map<const Tensor*, std::size_t> last;
    std::unordered_set<const Tensor*> read;
};

Touches touches_of(const Graph& graph) {
    Touches touches;
    auto touch = [&](Tensor* tensor, std::size_t i) {
        const Tensor* root = root_of(tensor);
        touches.first.try_emplace(root, i);
        touches.last[root] = i;
    };
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        Tensor* node = graph.nodes[i];
        for (Tensor* src : node->src) {
            if (src != nullptr) {
                touch(src, i);
                touches.read.insert(src);
            }
        }
        touch(node, i);
    }
    return touches;
}

// Leafs flagged output, then nodes flagged output or read by no node.
std::vector<Tensor*> results_of(const Graph& graph, const Touches& touches) {
    std::vector<Tensor*> results;
    std::ranges::copy_if(graph.leafs, std::back_inserter(results),
                         [](const Tensor* leaf) { return leaf->has_flag(TensorFlag::output); });
    std::ranges::copy_if(graph.nodes, std::back_inserter(results), [&](const Tensor* node) {
        return node->has_flag(TensorFlag::output) || !touches.read.contains(node);
    });
    return results;
}

Schedule make_schedule(const Graph& graph, std::span<Tensor* const> tensors, const OutsideMemory& outside) {
    const Touches touches = touches_of(graph);
    Schedule schedule;
    schedule.fill_before.resize(graph.nodes.size());
    schedule.dead_after.resize(graph.nodes.size());
    schedule.results = results_of(graph, touches);

    std::unordered_set<const Tensor*> result_roots;
    for (Tensor* result : schedule.results) {
        result_roots.insert(root_of(result));
    }
    const std::unordered_set<const Tensor*> leafs(graph.leafs.begin(), graph.leafs.end());
    std::unordered_set<const Tensor*> computed;  // roots a node's kernel writes
    std::ranges::copy_if(graph.nodes, std::inserter(computed, computed.end()),
                         [](const Tensor* node) { return computes(node->op) && !node->is_view(); });
    for (Tensor* tensor : tensors) {
        if (tensor->is_view() || nbytes(*tensor) == 0) {
            continue;
        }
        const auto first = touches.first.find(tensor);
        if (!computed.contains(tensor)) {
            const bool early = outside.tensors.contains(tensor) || leafs.contains(tensor) ||
                               tensor->has_flag(TensorFlag::input) || first == touches.first.end();
            (early ? schedule.fill_first : schedule.fill_before[first->second]).push_back(tensor);
        }
        const auto last = touches.last.find(tensor);
        if (last != touches.last.end() && !result_roots.contains(tensor) && !outside.tensors.contains(tensor)) {
            schedule.dead_after[last->second].push_back(tensor);
        }
    }
    return schedule;
}

// How many rows each index tensor may name (it feeds GET_ROWS or SET_ROWS).
std::unordered_map<const Tensor*, std::int64_t> index_bounds(const Graph& graph) {
    std::unordered_map<const Tensor*, std::int64_t> bounds;
    auto bound = [&](Tensor* rows, std::int64_t limit) {
        const auto [it, inserted] = bounds.try_emplace(root_of(rows), limit);
        if (!inserted) {
            it->second = std::min(it->second, limit);
        }
    };
    for (Tensor* node : graph.nodes) {
        if (node->op == Op::GET_ROWS && node->src[0] != nullptr && node->src[1] != nullptr) {
            bound(node->src[1], node->src[0]->ne[1]);
        }
        if (node->op == Op::SET_ROWS && node->src[1] != nullptr) {
            bound(node->src[1], node->ne[1]);
        }
    }
    return bounds;
}

std::uintptr_t address(const void* data) {
    return reinterpret_cast<std::uintptr_t>(data);
}

// One run of a graph: the steps below, each false (with result_.error) when it fails.
class Run {
public:
    Run(Backend backend, Graph& graph, const ExecutionOptions& options)
        : backend_(backend), graph_(&graph), options_(&options), bounds_(index_bounds(graph)) {}

    ExecutionResult execute(BufferType& outside_type) {
        const std::vector<Tensor*> tensors = graph_tensors(*graph_);
        // Addresses given to tensors with outside memory go with that memory when the run ends.
        const TensorMemoryRestore restore(tensors);
        run(tensors, outside_type);
        return std::move(result_);
    }

private:
    bool run(std::span<Tensor* const> tensors, BufferType& outside_type);
    bool fail(std::string error) {
        result_.error = std::move(error);
        return false;
    }
    bool prepare_nodes();
    bool check_given_values(const Schedule& schedule);
    bool poison_all(std::span<Tensor* const> tensors, const OutsideMemory& outside);
    bool poison(Tensor& tensor, std::size_t offset, std::size_t size);
    bool poison_dead(Tensor& dead, const Tensor& written);
    bool fill(std::span<Tensor* const> tensors);
    bool run_nodes(const Schedule& schedule);
    bool read_results(const Schedule& schedule);

    Backend backend_;
    Graph* graph_;
    const ExecutionOptions* options_;
    std::unordered_map<const Tensor*, std::int64_t> bounds_;
    std::vector<PreparedNode> prepared_;
    ExecutionResult result_;
};

bool Run::run(std::span<Tensor* const> tensors, BufferType& outside_type) {
    const OutsideMemory outside = bind_outside_memory(tensors, outside_type);
    if (!outside.error.empty()) {
        return fail(outside.error);
    }
    if (auto error = check_memory(backend_, tensors); !error.empty()) {
        return fail(error);
    }
    const Schedule schedule = make_schedule(*graph_, tensors, outside);
    return prepare_nodes() && check_given_values(schedule) && poison_all(tensors, outside) &&
           fill(schedule.fill_first) && run_nodes(schedule) && read_results(schedule);
}

bool Run::prepare_nodes() {
    prepared_.reserve(graph_->nodes.size());
    for (const Tensor* node : graph_->nodes) {
        prepared_.push_back(computes(node->op) ? prepare_node(*node) : PreparedNode{});
        if (!prepared_.back().error.empty()) {
            return fail("not executable: " + prepared_.back().error);
        }
    }
    return true;
}

bool Run::check_given_values(const Schedule& schedule) {
    std::vector<const Tensor*> filled(schedule.fill_first.begin(), schedule.fill_first.end());
    for (const auto& list : schedule.fill_before) {
        filled.insert(filled.end(), list.begin(), list.end());
    }
    for (const auto& [name, values] : options_->values) {
        const auto tensor = std::ranges::find(filled, name, &Tensor::name);
        if (tensor == filled.end()) {
            return fail("values given for '" + name + "', which is not a tensor the executor fills");
        }
        if (values.size() != static_cast<std::size_t>(element_count(**tensor))) {
            return fail("values given for '" + name + "': " + std::to_string(values.size()) + " for " +
                        std::to_string(element_count(**tensor)) + " elements");
        }
    }
    return true;
}

// Before anything is written: every byte of every tensor of the plan.
bool Run::poison_all(std::span<Tensor* const> tensors, const OutsideMemory& outside) {
    if (!options_->poison) {
        return true;
    }
    return std::ranges::all_of(tensors, [&](Tensor* tensor) {
        return tensor->is_view() || outside.tensors.contains(tensor) || nbytes(*tensor) == 0 ||
               poison(*tensor, 0, nbytes(*tensor));
    });
}

bool Run::poison(Tensor& tensor, std::size_t offset, std::size_t size) {
    if (tensor.buffer->memset_tensor(tensor, kPoisonByte, offset, size) != Status::success) {
        return fail("cannot poison " + tensor.name + type_detail(tensor.buffer->type()));
    }
    return true;
}

// Poisons a dead root's bytes, less those of the root the node just wrote (an in-place
// result sits where its parent was).
bool Run::poison_dead(Tensor& dead, const Tensor& written) {
    const std::uintptr_t begin = address(dead.data);
    const std::uintptr_t end = begin + nbytes(dead);
    const std::uintptr_t kept_begin = address(written.data);
    const std::uintptr_t kept_end = kept_begin + nbytes(written);
    if (written.buffer != dead.buffer || kept_end <= begin || kept_begin >= end) {
        return poison(dead, 0, end - begin);
    }
    const bool before = kept_begin <= begin || poison(dead, 0, kept_begin - begin);
    return before && (kept_end >= end || poison(dead, kept_end - begin, end - kept_end));
}

bool Run::fill(std::span<Tensor* const> tensors) {
    for (Tensor* tensor : tensors) {
        FillSpec spec;
        spec.seed = options_->seed;
        if (const auto bound = bounds_.find(tensor); bound != bounds_.end()) {
            spec.index_bound = bound->second;
        }
        if (const auto given = options_->values.find(tensor->name); given != options_->values.end()) {
            spec.values = given->second;
        }
        const std::vector<std::byte> image = fill_image(*tensor, spec);
        if (tensor->buffer->set_tensor(*tensor, image, 0) != Status::success) {
            return fail("cannot write " + tensor->name + type_detail(tensor->buffer->type()));
        }
    }
    return true;
}

bool Run::run_nodes(const Schedule& schedule) {
    for (std::size_t i = 0; i < graph_->nodes.size(); ++i) {
        Tensor& node = *graph_->nodes[i];
        if (!fill(schedule.fill_before[i])) {
            return false;
        }
        if (computes(node.op) && element_count(node) > 0) {
            if (auto error = run_kernel(backend_, prepared_[i].args); !error.empty()) {
                return fail(std::string(op_name(node.op)) + " " + node.name + ": " + error);
            }
        }
        if (options_->poison) {
            for (Tensor* dead : schedule.dead_after[i]) {
                if (!poison_dead(*dead, *root_of(&node))) {
                    return false;
                }
            }
        }
    }
    return true;
}

bool Run::read_results(const Schedule& schedule) {
    for (const Tensor* tensor : schedule.results) {
        std::vector<std::byte> image(nbytes(*tensor));
        if (!image.empty() && tensor->buffer->get_tensor(*tensor, image, 0) != Status::success) {
            return fail("cannot read " + tensor->name + type_detail(tensor->buffer->type()));
        }
        result_.outputs.push_back({tensor->name, tensor->type, tensor->ne, pack_elements(*tensor, image)});
    }
    return true;
}

} // namespace

std::string_view backend_name(Backend backend) {
    return backend == Backend::cpu ? "CPU" : "CUDA";
}

std::string backend_unavailable_reason(Backend backend) {
    if (backend == Backend::cpu) {
        return {};
    }
#ifdef GALLOCSIM_HAVE_CUDA
    const CudaProbe probe = probe_cuda_device();
    return probe.available ? std::string() : "no CUDA device: " + probe.description;
#else
    return "this build has no CUDA backend (no CUDA compiler was found)";
#endif
}

bool backend_available(Backend backend) {
    return backend_unavailable_reason(backend).empty();
}

std::unique_ptr<BufferType> make_buffer_type(Backend backend) {
    if (backend == Backend::cpu) {
        return std::make_unique<CpuBufferType>();
    }
#ifdef GALLOCSIM_HAVE_CUDA
    return std::make_unique<CudaBufferType>();
#else
    return nullptr;
#endif
}

const TensorValue* ExecutionResult::find(std::string_view name) const {
    const auto it = std::ranges::find(outputs, name, &TensorValue::name);
    return it == outputs.end() ? nullptr : &*it;
}

Executor::Executor(Backend backend) : backend_(backend), outside_type_(make_buffer_type(backend)) {}

Executor::~Executor() = default;

ExecutionResult Executor::run(Graph& graph, const ExecutionOptions& options) {
    if (outside_type_ == nullptr) {
        return {backend_unavailable_reason(backend_), {}};
    }
    return Run(backend_, graph, options).execute(*outside_type_);
}

} // namespace gallocsim
