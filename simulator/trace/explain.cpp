#include "simulator/trace/explain.hpp"
#include "reference/dynamic_allocator.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace gallocsim {
namespace {

constexpr std::size_t kUnbounded = kMaxChunkSize;  // a chunk with no size limit

// Consumer and view counts are ints in the hash node; they are never negative.
std::size_t non_negative(int n) {
    return static_cast<std::size_t>(std::max(n, 0));
}

std::string join(const std::vector<std::string>& parts, const std::string& last_separator = " and ") {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) {
            out += i + 1 == parts.size() ? last_separator : ", ";
        }
        out += parts[i];
    }
    return out;
}

std::string hex(std::uint64_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

std::string shape(const TraceTensor& tensor) {
    return shape_text(tensor);
}

// Explains one event; each overload mirrors the reference step that emitted it.
class Explainer {
public:
    Explainer(const Trace& trace, const SimState& before, std::size_t index)
        : trace_(trace), before_(before), index_(index), event_(trace.events.at(index)) {}

    std::string operator()(const Recorded<event::PlanStarted>& e) const {
        std::string text = before_.position > 0 ? "A new plan starts: reserve_n" : "reserve_n starts planning";
        if (e.measure_only) {
            text = "reserve_n_size measures, allocating nothing,";
        }
        return text + " where " + counted(trace_.leaf_count, "leaf") + " and " + counted(trace_.node_count, "node") +
               " go in " + buffers() + ".";
    }

    std::string operator()(const Recorded<event::CountingStarted>&) const {
        return "The counting pass starts: it goes through the nodes in order, counting each tensor's consumers and "
               "views, and gives graph inputs memory now so that nothing planned later can take it.";
    }

    std::string operator()(const Recorded<event::NodeStarted>& e) const {
        const TraceTensor& node = tensor(e.node);
        std::string text = "Node " + std::to_string(e.index + 1) + " of " + std::to_string(trace_.node_count) + ": " +
                           formula(e.node) + ". ";
        if (node.is_view()) {
            return text + "It is a view of " + name(node.view_src) + ", so it gets no memory of its own.";
        }
        if (node.external) {
            return text + "It already has memory from outside the allocator.";
        }
        if (on_outside_buffer(node)) {
            return text + "It is in a buffer from outside the allocator with no data yet, which this ggml counts as "
                          "allocated, so it gets no memory here.";
        }
        if (before_.tensor(e.node).life == TensorLife::live) {
            return text + "It already has memory: it was allocated early, as a graph input.";
        }
        if (trace_.profile->can_inplace(node.op) && !kernel_inplace_ops().contains(node.op)) {
            // Only an unsafe policy gets here: the trace must not say a backend could do it.
            return text + std::string(op_name(node.op)) + " runs in place by this unsafe policy, though no ggml kernel can run it "
                   "over its source, so " + node.name + " first tries to take over the memory of a parent it is the last to read.";
        }
        if (trace_.profile->can_inplace(node.op)) {
            return text + std::string(op_name(node.op)) + " can run in place, so " + node.name +
                   " first tries to take over the memory of a parent it is the last to read.";
        }
        return text + std::string(op_name(node.op)) + " cannot run in place, so " + node.name +
               " needs a free block of its own.";
    }

    std::string operator()(const Recorded<event::ConsumerCounted>& e) const {
        if (e.tensor == e.consumer) {
            return name(e.tensor) + " reads itself (as the CPY made by ggml_cast does), so it counts as its own consumer: " +
                   counted(non_negative(e.children), "consumer") + " so far.";
        }
        return name(e.consumer) + " reads " + name(e.tensor) + ": " + name(e.tensor) + " now has " +
               counted(non_negative(e.children), "consumer") + ".";
    }

    std::string operator()(const Recorded<event::ViewCounted>& e) const {
        return name(e.view) + " is a view of " + name(e.tensor) + ": " + name(e.tensor) + " now has " +
               counted(non_negative(e.views), "view") + ", and keeps its memory until they are released.";
    }

    std::string operator()(const Recorded<event::ChunkCreated>& e) const {
        const TraceBuffer& buffer = trace_.buffer(e.buffer_id);
        const std::size_t chunks = before_.allocator_of(trace_, e.buffer_id).chunks.size();
        std::string text;
        if (chunks == 0) {
            text = "Buffer " + std::to_string(buffer.canonical_id) + " has no chunk yet, so chunk 0 is created for " +
                   name(e.tensor);
        } else {
            const std::string where = chunks == 1 ? std::string("chunk 0") : "the " + counted(chunks, "chunk");
            text = "No free block in " + where + " can hold " + name(e.tensor) + "'s " + byte_count(e.request) +
                   ", so chunk " + std::to_string(e.chunk) + " is created";
        }
        const std::string endless = ": one free block from offset 0 with no end (SIZE_MAX/2 bytes), as ";
        switch (e.why_this_size) {
        case ChunkSize::no_max_size: return text + endless + "the buffer type sets no max size.";
        case ChunkSize::last_chunk: return text + endless + "it is the last chunk allowed.";
        case ChunkSize::tensor_needs_more:
            return text + ": one free block of " + byte_count(e.size) + ", more than the max size of " +
                   byte_count(std::min(buffer.max_size, kUnbounded)) + ", because " + name(e.tensor) + " alone needs that much.";
        case ChunkSize::max_size: break;
        }
        return text + ": one free block of " + byte_count(e.size) + ", the buffer type's max size.";
    }

    std::string operator()(const Recorded<event::TensorAllocated>& e) const {
        const BlockTaken& taken = trace_.taken(e);
        std::string text = subject(e) + " needs " + size_phrase(e.alloc_size, taken.size, e.buffer_id) + " and goes at " +
                           where(e.buffer_id, taken.address);
        switch (taken.choice) {
        case BlockChoice::new_chunk:
            text += ", the start of the new chunk " + std::to_string(taken.address.chunk) + ", which grows to " +
                    byte_count(taken.high_water_after) + ".";
            break;
        case BlockChoice::tail:
            text += ": " + tail_reason(e) + growth(taken) + ".";
            break;
        case BlockChoice::best_fit:
            text += ": " + best_fit_reason(e) + ".";
            break;
        }
        if (e.phase == AllocationPhase::graph_input) {
            text += " Inputs get memory while counting, before any node runs, so nothing planned later can take it.";
        }
        return text + holds_no_byte(taken.size);
    }

    std::string operator()(const Recorded<event::InPlaceRejected>& e) const {
        return name(e.node) + " cannot reuse " + name(e.parent) + "'s memory in place: " + rejection(e) + ".";
    }

    std::string operator()(const Recorded<event::InPlaceReused>& e) const {
        std::string whose = name(e.parent) + "'s memory";
        if (e.view_source != kNoTensor) {
            whose = "the memory of " + name(e.view_source) + ", through its view " + name(e.parent) + ",";
        }
        const std::string text = name(e.node) + " reuses " + whose + " at " + where(e.buffer_id, e.address) + ": " +
                                 std::string(op_name(tensor(e.node).op)) + " can run in place, and " + name(e.parent);
        const std::string no_byte = holds_no_byte(e.alloc_size);
        if (event_.stage == Stage::counting) {
            // An input allocated early: its own read of the parent is not counted yet.
            return text + " has exactly one consumer counted so far, no views, the same layout and no output flag "
                          "(the counting pass has not finished, so this count is not the final one)." + no_byte;
        }
        return text + " has one consumer left (" + name(e.node) + " itself), no views, the same layout and no output flag." + no_byte;
    }

    // What a 0-byte tensor's place means, said once for every sentence that gives one (MemoryRange).
    static std::string holds_no_byte(std::size_t bytes) {
        return bytes == 0 ? " It holds no byte: the offset is only an address, and no other tensor's bytes are touched." : "";
    }

    // The state before this event already holds the new place (it is reported after the
    // allocation that made it); the first place and what became of it are in the trace.
    std::string operator()(const Recorded<event::TensorPlacedAgain>& e) const {
        const TraceTensor& placed = tensor(e.tensor);
        const HashNode& now = before_.tensor(e.tensor).record;
        const BufferAddress previous{e.previous_chunk, e.previous_offset};
        std::string text = placed.name + " is placed a second time: it had memory at " + where(e.previous_buffer, previous) +
                           ", but " + what_became_of_first_place(e.tensor) + ", and ggml, meeting " + placed.name;
        switch (e.phase) {
        case AllocationPhase::parent: text += " again as a source of " + name(event_.node); break;
        case AllocationPhase::node: text += " again as it runs"; break;
        case AllocationPhase::graph_input: text += " again as a graph input"; break;
        case AllocationPhase::leaf: text += " again as a leaf"; break;
        }
        return text + " with no memory of its own, gives it " + where(now.buffer_id, now.address) +
               ". Only this last place counts: it is where alloc_graph puts " + placed.name +
               " and what the plan shows; whatever read or wrote " + placed.name +
               " at its first place did so in bytes it no longer has.";
    }

    std::string operator()(const Recorded<event::ExtraSpaceFreed>& e) const {
        const FreeDecision& freed = trace_.freed(e);
        const std::size_t parent_offset = before_.tensor(e.parent).record.address.offset;
        const std::size_t node_bytes = freed.address.offset - parent_offset;
        return name(e.parent) + "'s block is larger than " + name(e.node) + " needs (" + byte_count(node_bytes + freed.size) +
               " against " + byte_count(node_bytes) + "): the " + byte_count(freed.size) + " past " + name(e.node) +
               "'s end, at " + where(e.buffer_id, freed.address) + ", " + merge_phrase(freed) + ".";
    }

    std::string operator()(const Recorded<event::ParentReleased>& e) const {
        std::string text = name(e.node) + " has run: " + name(e.parent) + " has " + left(e.children_left, e.views_left);
        if (e.children_left != 0 || e.views_left != 0) {
            return text + ".";
        }
        const TraceTensor& parent = tensor(e.parent);
        if (parent.is_view()) {
            return text + ", and as a view it gives its source " + name(parent.view_src) + " one view back.";
        }
        if (e.still_owned) {
            return text + (parent.has_flag(TensorFlag::output) ? ", but it is a graph output, so it is kept."
                                                                : ", so it is freed next.");
        }
        return text + ", " + why_nothing_to_free(e.parent) + ".";
    }

    std::string operator()(const Recorded<event::ViewReleased>& e) const {
        std::string text = name(e.view) + " is done: its source " + name(e.view_source) + " now has " +
                           left(e.source_children, e.source_views_left);
        if (e.source_children != 0 || e.source_views_left != 0) {
            return text + ".";
        }
        if (before_.tensor(e.view_source).record.allocated) {
            return text + (tensor(e.view_source).has_flag(TensorFlag::output)
                               ? ", but it is a graph output, so it is kept."
                               : ", so it is freed next.");
        }
        return text + ", " + why_nothing_to_free(e.view_source) + ".";
    }

    std::string operator()(const Recorded<event::TensorFreed>& e) const {
        std::string reason = "its last consumer has run";
        if (e.reason == FreeReason::last_consumer && event_.node != kNoTensor) {
            reason = "its last consumer, " + name(event_.node) + ", has run";
        }
        if (e.reason == FreeReason::last_view) {
            reason = "its last view is done and nothing else reads it";
            if (index_ > 0) {
                if (const auto* released = std::get_if<Recorded<event::ViewReleased>>(&trace_.events[index_ - 1].data)) {
                    reason = "its last view, " + name(released->view) + ", is done and nothing else reads it";
                }
            }
        }
        const FreeDecision& freed = trace_.freed(e);
        return name(e.tensor) + " is freed: " + reason + ". Its " + byte_count(freed.size) + " at " +
               where(e.buffer_id, freed.address) + " " + merge_phrase(freed) + ".";
    }

    std::string operator()(const Recorded<event::OutputKept>& e) const {
        return name(e.tensor) + " is no longer needed by the graph, but it is a graph output, so its memory is kept: "
                                "outputs are never freed.";
    }

    std::string operator()(const Recorded<event::PlanFinished>& e) const {
        if (!e.ok) {
            return trace_.error.empty() ? "Planning failed." : "Planning failed: " + trace_.error + ".";
        }
        std::vector<std::string> needs;
        for (const int id : trace_.allocator_buffer_ids()) {
            const auto& chunks = before_.allocator_of(trace_, id).chunks;
            std::size_t total = 0;
            std::vector<std::string> sizes;
            for (const Chunk& chunk : chunks) {
                total += chunk.high_water;
                sizes.push_back(std::to_string(chunk.high_water));
            }
            std::string need = "buffer " + std::to_string(id) + " needs " + byte_count(total);
            if (chunks.size() > 1) {
                need += " in " + counted(chunks.size(), "chunk") + " (" + join(sizes, ", ") + ")";
            }
            needs.push_back(need);
        }
        return "reserve_n is done: " + join(needs) + ".";
    }

    std::string operator()(const Recorded<event::BufferAllocated>& e) const {
        const std::string buffer = "Buffer " + std::to_string(e.buffer_id) + " (" + trace_.buffer(e.buffer_id).type_name + ")";
        std::size_t total = 0;
        std::vector<std::string> sizes;
        const auto chunk_sizes = trace_.chunk_sizes(e);
        for (std::size_t size : chunk_sizes) {
            total += size;
            sizes.push_back(std::to_string(size));
        }
        if (!e.ok) {
            return buffer + " could not be allocated: " + byte_count(total) + " were not available.";
        }
        if (!e.reallocated) {
            return buffer + " keeps its " + byte_count(e.previous_size) + ": every chunk of the plan fits in it.";
        }
        std::string text = buffer + " is allocated";
        if (chunk_sizes.empty()) {
            text = buffer + " is set up empty: no tensor was planned in it";
        } else if (chunk_sizes.size() == 1) {
            text += ": one chunk of " + byte_count(total);
        } else {
            text += " as " + counted(chunk_sizes.size(), "chunk") + " of " + join(sizes) + " bytes";
        }
        if (e.previous_size > 0) {
            text += ", replacing the " + byte_count(e.previous_size) + " it had, which were too few";
        }
        return text + ".";
    }

    std::string operator()(const Recorded<event::TensorInitialised>& e) const {
        const TraceTensor& initialised = tensor(e.tensor);
        const std::string address = hex(e.data);
        if (e.buffer_id < 0) {
            const std::string source = name(initialised.view_src);
            return "alloc_graph sets up view " + initialised.name + " inside " + source + ": " + source + "'s address + " +
                   std::to_string(initialised.view_offs) + " = " + address + ".";
        }
        std::string text = "alloc_graph places " + initialised.name + " at " + base_phrase(e.buffer_id, e.address.chunk) +
                           " + offset " + std::to_string(e.address.offset) + " = " + address;
        const TensorId reused = before_.tensor(e.tensor).in_place_of;
        if (reused != kNoTensor) {
            const HashNode& owner = before_.tensor(reused).record;
            const bool same_place = trace_.buffer(owner.buffer_id).allocator == trace_.buffer(e.buffer_id).allocator &&
                                    owner.address == e.address;
            text += same_place ? ", the same address as " + name(reused) + ", whose memory it reuses"
                               : ", the memory it took over from " + name(reused) + " in place (" + name(reused) +
                                     " was placed again after, elsewhere)";
        }
        if (!before_.planned) {
            // alloc_graph kept a plan this trace does not hold: it places by position.
            text += ", where the plan it kept (made on another graph) puts ";
            switch (initialised.role) {
            case TensorRole::leaf: text += "leaf " + std::to_string(initialised.position); break;
            case TensorRole::node: text += "node " + std::to_string(initialised.position); break;
            case TensorRole::other: text += "it"; break;
            }
        }
        return text + ".";
    }

private:
    const TraceTensor& tensor(TensorId id) const { return trace_.tensor(id); }
    // In a buffer from outside with no data yet, where this state counts that as allocated.
    bool on_outside_buffer(const TraceTensor& t) const {
        return t.on_external_buffer && trace_.profile->external_buffer_is_allocated;
    }
    // Memory the allocator leaves alone: external data, or such a buffer.
    bool outside_allocator(const TraceTensor& t) const { return t.external || on_outside_buffer(t); }
    std::string name(TensorId id) const { return id == kNoTensor ? std::string("(none)") : tensor(id).name; }

    // "mul = MUL(a, b)"
    std::string formula(TensorId id) const {
        const TraceTensor& t = tensor(id);
        std::vector<std::string> sources;
        for (TensorId src : t.src) {
            if (src != kNoTensor) {
                sources.push_back(name(src));
            }
        }
        if (sources.empty()) {
            return t.name + " (" + std::string(op_name(t.op)) + ")";
        }
        return t.name + " = " + std::string(op_name(t.op)) + "(" + join(sources, ", ") + ")";
    }

    std::string buffers() const {
        std::vector<std::string> parts;
        for (const int id : trace_.allocator_buffer_ids()) {
            const TraceBuffer& buffer = trace_.buffer(id);
            std::string part = std::to_string(id) + " (" + buffer.type_name + ", " +
                               std::to_string(buffer.alignment) + "-byte alignment";
            if (buffer.max_size < kUnbounded) {
                part += ", chunks of at most " + byte_count(buffer.max_size);
            }
            parts.push_back(part + ")");
        }
        return (parts.size() == 1 ? "buffer " : counted(parts.size(), "buffer") + ": ") + join(parts);
    }

    bool several_chunks(int buffer_id) const { return before_.allocator_of(trace_, buffer_id).chunks.size() > 1; }

    // "offset 32", "offset 32 of chunk 1", "offset 32 in buffer 1"
    std::string where(int buffer_id, BufferAddress address) const {
        std::string text = "offset " + std::to_string(address.offset);
        if (several_chunks(buffer_id) || address.chunk > 0) {
            text += " of chunk " + std::to_string(address.chunk);
        }
        if (trace_.allocator_count > 1) {
            text += " in buffer " + std::to_string(trace_.buffer(buffer_id).canonical_id);
        }
        return text;
    }

    std::string base_phrase(int buffer_id, int chunk) const {
        if (trace_.allocator_count == 1 && !several_chunks(buffer_id)) {
            return "the buffer's base";
        }
        std::string text = "the base of chunk " + std::to_string(chunk);
        if (trace_.allocator_count > 1) {
            text += " of buffer " + std::to_string(trace_.buffer(buffer_id).canonical_id);
        }
        return text;
    }

    std::string size_phrase(std::size_t alloc_size, std::size_t aligned, int buffer_id) const {
        if (alloc_size == aligned) {
            return byte_count(aligned);
        }
        return byte_count(alloc_size) + " (" + std::to_string(aligned) + " once aligned to " +
               std::to_string(trace_.buffer(buffer_id).alignment) + ")";
    }

    std::string subject(const Recorded<event::TensorAllocated>& e) const {
        switch (e.phase) {
        case AllocationPhase::leaf: return "Leaf " + name(e.tensor);
        case AllocationPhase::graph_input: return "Input " + name(e.tensor);
        case AllocationPhase::parent: {
            const TensorState& before = before_.tensor(e.tensor);
            const std::string parent = name(e.tensor) + ", a parent of " + name(event_.node);
            if (before.life == TensorLife::handed_over) {
                return parent + " whose memory went to " + name(before.handed_to) + " in place,";
            }
            return parent + (before.life == TensorLife::freed ? " that was freed," : " with no memory yet,");
        }
        case AllocationPhase::node: return name(e.tensor);
        }
        return name(e.tensor);
    }

    std::string tail_reason(const Recorded<event::TensorAllocated>& e) const {
        const BlockTaken& taken = trace_.taken(e);
        const auto candidates = trace_.candidates(e);
        const auto non_tail = static_cast<std::size_t>(std::ranges::count(candidates, false, &BlockCandidate::is_tail));
        const std::string text = nothing_fits_before_the_tail(non_tail, several_chunks(e.buffer_id));
        if (taken.tail_reason == TailReason::only_fit) {
            return text + ", so " + name(e.tensor) +
                   (taken.block_consumed ? " takes all of the tail" : " takes the start of the tail");
        }
        return text + ", so " + name(e.tensor) + " takes the start of chunk " + std::to_string(taken.address.chunk) +
               "'s tail, chosen among " + std::to_string(taken.fitting_blocks) + " tails that fit by its reuse factor " +
               std::to_string(taken.reuse_factor) +
               (taken.tail_reason == TailReason::least_unused
                    ? " (it fits below the high-water mark and leaves the least unused)"
                    : " (no tail fits below its high-water mark, and this one grows its chunk least)");
    }

    // Why the search fell through to a tail.
    static std::string nothing_fits_before_the_tail(std::size_t blocks, bool several_chunks) {
        const std::string tails = several_chunks ? "the tails" : "the tail";
        if (blocks == 0) {
            return several_chunks ? "no chunk has a free block before its tail" : "there is no free block but the tail";
        }
        if (blocks == 1) {
            return "the one free block before " + tails + " is too small";
        }
        return "none of the " + counted(blocks, "free block") + " before " + tails + " is large enough";
    }

    static std::string growth(const BlockTaken& taken) {
        if (taken.high_water_after > taken.high_water_before) {
            return ", and the chunk grows from " + std::to_string(taken.high_water_before) + " to " +
                   byte_count(taken.high_water_after);
        }
        return ", and the chunk does not grow: it stays " + byte_count(taken.high_water_after);
    }

    // Words the allocator's own reason (AllocationDecision::best_fit_reason).
    std::string best_fit_reason(const Recorded<event::TensorAllocated>& e) const {
        const BlockTaken& taken = trace_.taken(e);
        const auto fitting = static_cast<std::size_t>(taken.fitting_blocks);
        std::string text = fitting <= 1 ? "the only free block before the tail that fits"
                                        : fit_rule_words(taken.best_fit_reason) + " among " + counted(fitting, "free block") +
                                              " that fit";
        text += " has " + byte_count(taken.block_before.size) + " there";
        text += taken.block_consumed ? ", all used"
                                     : ", so " + byte_count(taken.block_before.size - taken.size) + " stay free at offset " +
                                           std::to_string(taken.address.offset + taken.size);
        switch (taken.best_fit_reason) {
        case BestFitReason::only_fit:
        case BestFitReason::smallest: break;
        case BestFitReason::later_chunk:
            text += " (chunk " + std::to_string(tighter_chunk(e, taken)) +
                    " has a tighter one, but the best is kept per chunk and a later chunk's fit wins)";
            break;
        case BestFitReason::last_of_equals:
            text += " (of " + std::to_string(taken.equal_fits) + " blocks of that size, the last one wins)";
            break;
        case BestFitReason::first_of_equals:
            text += " (of " + std::to_string(taken.equal_fits) + " blocks of that size, the policy takes the first)";
            break;
        case BestFitReason::first_fit:
        case BestFitReason::largest_fit: break;
        }
        return text;
    }

    // The rule that chose among several fitting blocks: upstream's best fit, or a policy's.
    static std::string fit_rule_words(BestFitReason reason) {
        switch (reason) {
        case BestFitReason::first_fit: return "the first fit (the policy's rule)";
        case BestFitReason::largest_fit: return "the largest fit (the policy's rule)";
        default: return "the best fit";
        }
    }

    // The chunk holding the tightest fit that lost to a later chunk's (for the wording only).
    int tighter_chunk(const Recorded<event::TensorAllocated>& e, const BlockTaken& taken) const {
        int chunk = taken.address.chunk;
        std::size_t tightest = taken.block_before.size;
        for (const BlockCandidate& c : trace_.candidates(e)) {
            if (!c.is_tail && c.fits && c.free_block.size < tightest) {
                tightest = c.free_block.size;
                chunk = c.chunk;
            }
        }
        return chunk;
    }

    std::string rejection(const Recorded<event::InPlaceRejected>& e) const {
        const TraceTensor& parent = tensor(e.parent);
        const TraceTensor& node = tensor(e.node);
        switch (e.reason) {
        case InPlaceRejection::not_owned:
            return not_owned_reason(e.parent);
        case InPlaceRejection::output:
            if (parent.has_flag(TensorFlag::output)) {
                return parent.name + " is a graph output, and outputs are never overwritten";
            }
            return parent.name + " is a view of the graph output " + name(parent.view_src) +
                   ", and outputs are never overwritten";
        case InPlaceRejection::different_layout:
            if (parent.type != node.type) {
                return parent.name + " is " + std::string(type_name(parent.type)) + " and " + node.name + " is " +
                       std::string(type_name(node.type));
            }
            if (parent.ne != node.ne) {
                return parent.name + " has shape " + shape(parent) + " and " + node.name + " has " + shape(node);
            }
            return parent.name + " and " + node.name + " have the same shape but different strides";
        case InPlaceRejection::other_consumers: {
            std::vector<std::string> reasons;
            if (e.parent_children == 0) {
                reasons.push_back(parent.name + "'s consumers are not counted yet");
            } else if (e.parent_children != 1) {
                reasons.push_back(parent.name + " still has " + counted(non_negative(e.parent_children), "consumer") + ", so " +
                                  node.name + " is not the last to read it");
            }
            if (e.parent_views != 0) {
                reasons.push_back(counted(non_negative(e.parent_views), "view") + " of " + parent.name +
                                  (e.parent_views == 1 ? " still reads" : " still read") + " its memory");
            }
            return join(reasons);
        }
        case InPlaceRejection::view_source_busy:
            return parent.name + " is a view, and its source " + name(parent.view_src) + " still has other users";
        }
        return "?";
    }

    std::string not_owned_reason(TensorId id) const {
        const TraceTensor& t = tensor(id);
        if (t.external) {
            return t.name + " lives in memory the allocator does not own";
        }
        if (on_outside_buffer(t)) {
            return t.name + " is in a buffer the allocator does not own (no data yet)";
        }
        if (t.is_view()) {
            return t.name + " is a view of " + name(t.view_src) + " and owns no memory";
        }
        const TensorState& state = before_.tensor(id);
        switch (state.life) {
        case TensorLife::none: return t.name + " has no memory from the allocator yet";
        case TensorLife::handed_over: return t.name + "'s memory already belongs to " + name(state.handed_to);
        case TensorLife::freed: return t.name + " was already freed";
        case TensorLife::live: break;
        }
        return t.name + "'s memory is not the allocator's to give";
    }

    // "its memory went to c in place (event 12)" or "it was freed (event 9)": the last event
    // before this one that took the tensor's memory away.
    std::string what_became_of_first_place(TensorId id) const {
        for (std::size_t k = index_; k-- > 0;) {
            const RecordedEvent& data = trace_.events[k].data;
            if (const auto* reused = std::get_if<Recorded<event::InPlaceReused>>(&data)) {
                const TensorId owner = reused->view_source != kNoTensor ? reused->view_source : reused->parent;
                if (owner == id) {
                    return "that memory went to " + name(reused->node) + " in place (event " + std::to_string(k + 1) + ")";
                }
            }
            if (const auto* freed = std::get_if<Recorded<event::TensorFreed>>(&data); freed && freed->tensor == id) {
                return "it was freed (event " + std::to_string(k + 1) + ") once the nodes reading it had run";
            }
        }
        return "that memory is no longer its own";
    }

    std::string why_nothing_to_free(TensorId id) const {
        const TraceTensor& t = tensor(id);
        const TensorState& state = before_.tensor(id);
        if (outside_allocator(t)) {
            return "and its memory is not the allocator's to free";
        }
        if (state.life == TensorLife::handed_over) {
            return "but its memory now belongs to " + name(state.handed_to) + ", so nothing is freed";
        }
        return "and it holds no memory of the allocator's";
    }

    static std::string left(int children, int views) {
        if (children == 0 && views == 0) {
            return "no consumers or views left";
        }
        std::string text = children == 0 ? "no consumers left" : counted(non_negative(children), "consumer") + " left";
        if (views > 0) {
            text += " and " + counted(non_negative(views), "view");
        }
        return text;
    }

    // What became of a freed range: which free blocks it joined, and where the result lies.
    // A neighbour may be an empty free block (0 bytes: what freeing a zero-byte tensor leaves),
    // which upstream merges like any other; the bytes it adds are none, and the words say so.
    static std::string merge_phrase(const FreeDecision& decision) {
        const std::size_t start = decision.address.offset;
        const std::size_t before_bytes = start - decision.result.offset;
        const std::size_t after_bytes = decision.result.end() - (start + decision.size);
        const std::string before = before_bytes == 0 ? "an empty free block (0 bytes) at their start" : "the free block before them";
        const std::string after = after_bytes == 0 ? "an empty free block (0 bytes) at their end" : "the free block after them";
        std::string text;
        switch (decision.merge) {
        case MergeKind::none:
            return decision.size == 0 ? "become an empty free block of their own, which holds no bytes"
                                      : "become a new free block, touching no other";
        case MergeKind::previous: text = "join " + before; break;
        case MergeKind::next: text = "join " + after; break;
        case MergeKind::both:
            text = before_bytes != 0 && after_bytes != 0 ? "join the free blocks on both sides" : "join " + before + " and " + after;
            break;
        }
        if (decision.result_is_tail()) {
            return text + ", and the tail now starts at offset " + std::to_string(decision.result.offset);
        }
        return text + " into one free block of " + byte_count(decision.result.size) + " at offset " +
               std::to_string(decision.result.offset);
    }

    const Trace& trace_;
    const SimState& before_;
    std::size_t index_;
    const TraceEvent& event_;
};

} // namespace


std::string shape_text(const TraceTensor& tensor, std::string_view separator) {
    int dims = kMaxDims;
    while (dims > 1 && tensor.ne[static_cast<std::size_t>(dims - 1)] == 1) {
        --dims;
    }
    std::string text;
    for (int d = 0; d < dims; ++d) {
        text += (d == 0 ? "" : std::string(separator)) + std::to_string(tensor.ne[static_cast<std::size_t>(d)]);
    }
    return separator == ", " ? "[" + text + "]" : text;
}

std::string explain(const Trace& trace, const SimState& before, std::size_t index) {
    return std::visit(Explainer(trace, before, index), trace.events.at(index).data);
}

std::vector<std::string> explain_all(const Trace& trace) {
    std::vector<std::string> texts;
    texts.reserve(trace.size());
    SimState state = initial_state(trace);
    for (std::size_t i = 0; i < trace.size(); ++i) {
        texts.push_back(explain(trace, state, i));
        apply_next(state, trace);
    }
    return texts;
}

} // namespace gallocsim
