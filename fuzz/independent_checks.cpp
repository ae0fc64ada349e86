#include "fuzz/independent_checks.hpp"

#include "reference/profile.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>

namespace gallocsim::fuzz {
namespace {

std::size_t offset_of(const Tensor& tensor) {
    return reinterpret_cast<std::uintptr_t>(tensor.data) - reinterpret_cast<std::uintptr_t>(tensor.buffer->base());
}

bool reads(const Tensor& node, const Tensor& tensor) {
    return std::ranges::find(node.src, &tensor) != node.src.end();
}

std::string step_name(int step) {
    return step == kNever ? "the end" : "step " + std::to_string(step);
}

std::string show(const PlacedBytes& p, const Lifetimes& lifetimes) {
    std::ostringstream s;
    const Lifetime& life = lifetimes.at(*p.tensor);
    s << p.tensor->name << " (" << p.buffer->type().name() << " bytes " << p.offset << ".." << p.offset + p.size
      << ", held from step " << life.birth << " to " << step_name(life.death) << ")";
    return s.str();
}

// `child` ran in place over `parent`: it reads the parent, its op may write over its
// operands, it starts at the parent's address, and the parent's last step is the child's first.
bool in_place_over(const PlacedBytes& child, const PlacedBytes& parent, const Lifetimes& lifetimes) {
    return reads(*child.tensor, *parent.tensor) && may_run_in_place(child.tensor->op) && child.offset == parent.offset &&
           lifetimes.at(*parent.tensor).death == lifetimes.at(*child.tensor).birth;
}

// Calls f(a, b) for each pair of distinct placed tensors that share a byte.
template <typename F>
void for_each_sharing_pair(const std::vector<PlacedBytes>& placed, F&& f) {
    for (std::size_t i = 0; i < placed.size(); ++i) {
        for (std::size_t j = i + 1; j < placed.size(); ++j) {
            if (placed[i].overlaps(placed[j])) {
                f(placed[i], placed[j]);
                f(placed[j], placed[i]);
            }
        }
    }
}

} // namespace

// --- Lifetimes ------------------------------------------------------------------------

Lifetimes::Lifetimes(const Graph& graph) {
    const auto& nodes = graph.nodes;
    std::unordered_map<const Tensor*, int> last_read;                      // last step reading it
    std::unordered_map<const Tensor*, std::vector<const Tensor*>> views;  // counted views per root
    std::unordered_map<const Tensor*, int> step;                           // nodes only
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const Tensor* node = nodes[i];
        step[node] = static_cast<int>(i) + 1;
        for (const Tensor* src : node->src) {
            if (src != nullptr) {
                last_read[src] = static_cast<int>(i) + 1;
            }
        }
        // Views made by an op count; an op NONE node only adds a dependency.
        if (node->is_view() && node->op != Op::NONE) {
            views[node->view_src].push_back(node);
        }
    }

    // Birth: leafs before any node; inputs (op nodes with the input flag, and sources
    // with it) in the counting pass, also before any node; everything else when its node runs.
    auto born = [&](const Tensor* t, int at) {
        if (placed_by_allocator(*t) && !lifetimes_.contains(t)) {
            lifetimes_[t].birth = at;
        }
    };
    for (const Tensor* leaf : graph.leafs) {
        born(leaf, 0);
    }
    for (const Tensor* node : nodes) {
        if (node->has_flag(TensorFlag::input)) {
            born(node, 0);
        }
        for (const Tensor* src : node->src) {
            if (src != nullptr && src->has_flag(TensorFlag::input)) {
                born(src, 0);
            }
        }
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        born(nodes[i], static_cast<int>(i) + 1);
    }

    for (auto& [tensor, life] : lifetimes_) {
        const auto read = last_read.find(tensor);
        const bool consumed = read != last_read.end();
        const auto& tensor_views = views[tensor];
        // Only a consumer finishing, or a view being released, can release a tensor.
        bool released = consumed || !tensor_views.empty();
        int death = consumed ? read->second : 0;
        life.last_use = consumed ? read->second : life.birth;
        for (const Tensor* view : tensor_views) {
            const auto view_read = last_read.find(view);
            if (view_read == last_read.end()) {
                released = false;  // a view nothing reads is never released, nor is its root
                life.last_use = std::max(life.last_use, step.at(view));
                continue;
            }
            death = std::max(death, view_read->second);
            life.last_use = std::max(life.last_use, view_read->second);
        }
        life.death = released && !tensor->has_flag(TensorFlag::output) ? death : kNever;
    }
}

const Lifetime* Lifetimes::find(const Tensor& tensor) const {
    const auto it = lifetimes_.find(&tensor);
    return it == lifetimes_.end() ? nullptr : &it->second;
}

const Lifetime& Lifetimes::at(const Tensor& tensor) const {
    if (const Lifetime* life = find(tensor)) {
        return *life;
    }
    throw std::logic_error("no lifetime for " + tensor.name);
}

// --- Placements ---------------------------------------------------------------------

bool has_outside_memory(const Tensor& tensor) {
    return !tensor.is_view() && tensor.data != nullptr && tensor.buffer == nullptr;
}

bool may_run_in_place(Op op) {
    // ggml-alloc.c's switch, in its order, and llama.cpp 0c1e570's CLAMP.
    switch (op) {
    case Op::FILL: case Op::SCALE: case Op::DIAG_MASK_ZERO: case Op::DIAG_MASK_INF: case Op::ADD:
    case Op::ADD_ID: case Op::ADD1: case Op::SUB: case Op::MUL: case Op::DIV: case Op::SQR: case Op::SQRT:
    case Op::LOG: case Op::UNARY: case Op::ROPE: case Op::ROPE_BACK: case Op::SILU_BACK: case Op::RMS_NORM:
    case Op::RMS_NORM_BACK: case Op::SOFT_MAX: case Op::SOFT_MAX_BACK: case Op::CLAMP:
        return true;
    default:
        return false;
    }
}

bool placed_by_allocator(const Tensor& tensor) {
    return !tensor.is_view() && !has_outside_memory(tensor);
}

bool PlacedBytes::overlaps(const PlacedBytes& other) const {
    return buffer == other.buffer && size > 0 && other.size > 0 && offset < other.offset + other.size &&
           other.offset < offset + size;
}

std::vector<PlacedBytes> placed_tensors(const Graph& graph) {
    std::vector<PlacedBytes> placed;
    for (const auto* list : {&graph.leafs, &graph.nodes}) {
        for (const Tensor* t : *list) {
            if (placed_by_allocator(*t) && t->buffer != nullptr) {
                placed.push_back({t, t->buffer, offset_of(*t), t->buffer->alloc_size(*t)});
            }
        }
    }
    return placed;
}

// --- Property 1 ---------------------------------------------------------------------

std::vector<std::string> overlap_violations(const Graph& graph, const Lifetimes& lifetimes) {
    std::vector<std::string> problems;
    for_each_sharing_pair(placed_tensors(graph), [&](const PlacedBytes& a, const PlacedBytes& b) {
        const Lifetime& la = lifetimes.at(*a.tensor);
        const Lifetime& lb = lifetimes.at(*b.tensor);
        // Each pair comes twice; report it once, from the tensor made first.
        const bool first = la.birth < lb.birth || (la.birth == lb.birth && a.tensor->name < b.tensor->name);
        const bool both_held = la.birth <= lb.death && lb.birth <= la.death;
        if (first && both_held && !in_place_over(a, b, lifetimes) && !in_place_over(b, a, lifetimes)) {
            problems.push_back(show(a, lifetimes) + " shares bytes with " + show(b, lifetimes) + " while both are held");
        }
    });
    return problems;
}

// --- Property 3 ---------------------------------------------------------------------

std::vector<std::string> input_violations(const Graph& graph, const Lifetimes& lifetimes) {
    std::vector<std::string> problems;
    for_each_sharing_pair(placed_tensors(graph), [&](const PlacedBytes& input, const PlacedBytes& other) {
        if (!input.tensor->has_flag(TensorFlag::input)) {
            return;
        }
        const int last_use = lifetimes.at(*input.tensor).last_use;
        const int taken = lifetimes.at(*other.tensor).birth;
        if (taken > last_use || (taken == last_use && in_place_over(other, input, lifetimes))) {
            return;
        }
        problems.push_back("input " + show(input, lifetimes) + " is last read at step " + std::to_string(last_use) +
                           ", but " + show(other, lifetimes) + " holds its bytes from step " + std::to_string(taken));
    });
    return problems;
}

std::vector<std::string> output_violations(const Graph& graph, const Lifetimes& lifetimes) {
    std::vector<std::string> problems;
    for_each_sharing_pair(placed_tensors(graph), [&](const PlacedBytes& output, const PlacedBytes& other) {
        if (!output.tensor->has_flag(TensorFlag::output)) {
            return;
        }
        const int made = lifetimes.at(*output.tensor).birth;
        const int other_last_use = lifetimes.at(*other.tensor).last_use;
        if (other_last_use < made || (other_last_use == made && in_place_over(output, other, lifetimes))) {
            return;
        }
        problems.push_back("output " + show(output, lifetimes) + " shares bytes with " + show(other, lifetimes) +
                           ", which is read until step " + std::to_string(other_last_use));
    });
    return problems;
}

// --- Property 2 ---------------------------------------------------------------------

namespace {

// Whether a node reads a node that comes after it in the graph's order (generated and fuzzed
// graphs can be out of order). The allocator then gives that later node memory as a parent,
// may free it once its early reader is done, and gives it memory again at its own step: the
// first place raised the chunk's high-water mark although no tensor ends there afterwards.
bool reads_a_later_node(const Graph& graph) {
    std::map<const Tensor*, std::size_t> position;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        position.emplace(graph.nodes[i], i);
    }
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        for (const Tensor* src : graph.nodes[i]->src) {
            const Tensor* read = src != nullptr && src->is_view() ? src->view_src : src;
            if (const auto at = position.find(read); at != position.end() && at->second > i) {
                return true;
            }
        }
    }
    return false;
}

} // namespace

std::vector<std::string> bounds_violations(const GraphFile& file, const Graph& planned, const GraphAllocator& allocator,
                                           BufferHistory history) {
    std::vector<std::string> problems;
    struct ChunkUse {
        std::size_t high_water = 0;
        std::size_t largest = 0;  // largest aligned tensor
    };
    std::map<std::pair<int, int>, ChunkUse> chunks;  // (canonical buffer id, chunk)

    for (const auto* list : {&planned.leafs, &planned.nodes}) {
        for (const Tensor* t : *list) {
            if (file.is_external(*t)) {
                if (t->buffer != nullptr || t->data != external_data_placeholder()) {
                    problems.push_back("external tensor " + t->name + " was given memory");
                }
                continue;
            }
            if (t->is_view()) {
                const Tensor& root = *t->view_src;
                const bool root_placed = root.buffer != nullptr;
                const auto want = reinterpret_cast<std::uintptr_t>(root.data) + t->view_offs;
                if (root_placed && (t->buffer != root.buffer || reinterpret_cast<std::uintptr_t>(t->data) != want)) {
                    problems.push_back("view " + t->name + " is not at its root " + root.name + "'s address + " +
                                       std::to_string(t->view_offs));
                }
                if (!root_placed && t->buffer != nullptr) {
                    problems.push_back("view " + t->name + " has a buffer, but its root " + root.name + " has none");
                }
                continue;
            }
            const auto place = allocator.locate(*t);
            if (!place) {
                problems.push_back(t->name + " was given no memory");
                continue;
            }
            const std::size_t alignment = t->buffer->alignment();
            const std::size_t size = t->buffer->alloc_size(*t);
            const std::string where = t->name + " at offset " + std::to_string(place->offset) + " of chunk " +
                                      std::to_string(place->chunk) + " of buffer " + std::to_string(place->buffer_id);
            if (place->offset % alignment != 0) {
                problems.push_back(where + " is not aligned to " + std::to_string(alignment));
            }
            if (place->offset > t->buffer->size() || size > t->buffer->size() - place->offset) {
                problems.push_back(where + " (" + std::to_string(size) + " bytes) runs past the chunk's " +
                                   std::to_string(t->buffer->size()) + " bytes");
            }
            ChunkUse& use = chunks[{place->buffer_id, place->chunk}];
            const std::size_t aligned = align_up(size, alignment);
            use.high_water = std::max(use.high_water, place->offset + aligned);
            use.largest = std::max(use.largest, aligned);
        }
    }

    const bool kept = history == BufferHistory::kept_from_earlier_plan;
    // The final addresses show every tensor's last place only: a chunk may reach past them when
    // a buffer was kept, or when a node got memory twice (reads_a_later_node).
    const bool may_reach_past = kept || reads_a_later_node(planned);
    for (int id = 0; id < allocator.buffer_count(); ++id) {
        if (allocator.canonical_buffer_id(id) != id) {
            continue;
        }
        const std::vector<std::size_t> sizes = allocator.chunk_sizes(id);
        const std::size_t max_size = allocator.buffer_type(id).max_size();
        std::size_t total = 0;
        for (int c = 0; c < static_cast<int>(sizes.size()); ++c) {
            const std::size_t size = sizes[static_cast<std::size_t>(c)];
            total += size;
            const auto it = chunks.find({id, c});
            const std::string chunk = "chunk " + std::to_string(c) + " of buffer " + std::to_string(id);
            if (it == chunks.end()) {
                if (!kept) {  // a kept buffer may have more chunks than the plan needs now
                    problems.push_back(chunk + " (" + std::to_string(size) + " bytes) holds no tensor");
                }
                continue;
            }
            if (may_reach_past ? size < it->second.high_water : size != it->second.high_water) {
                problems.push_back(chunk + " has " + std::to_string(size) + " bytes, but its tensors reach " +
                                   std::to_string(it->second.high_water));
            }
            if (!kept && c != kMaxChunks - 1 && size > std::max(max_size, it->second.largest)) {
                problems.push_back(chunk + " has " + std::to_string(size) + " bytes, more than max_size " +
                                   std::to_string(max_size) + " and than its largest tensor (" +
                                   std::to_string(it->second.largest) + " bytes)");
            }
            chunks.erase(it);
        }
        if (allocator.buffer_size(id) != total) {
            problems.push_back("buffer " + std::to_string(id) + " reports " + std::to_string(allocator.buffer_size(id)) +
                               " bytes, its chunks add up to " + std::to_string(total));
        }
    }
    for (const auto& [key, use] : chunks) {
        problems.push_back("a tensor lies in chunk " + std::to_string(key.second) + " of buffer " +
                           std::to_string(key.first) + ", which the allocator does not report");
    }
    return problems;
}

} // namespace gallocsim::fuzz
