#pragma once
// The stretches of a trace during which each tensor holds memory, read off the trace's
// events: where (allocator, chunk, offset), how many aligned bytes, from which position
// to which. The timeline draws them as rectangles; the memory map and tooltips use the
// sizes. Positions count events applied, as the cursor's do: a span given memory by
// event e and losing it by event f is live at positions e + 1 .. f.

#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace gallocsim::gui {

enum class SpanEnd {
    freed,        // went back to the free list
    handed_over,  // a node took the memory over in place
    kept,         // still held at the end of the trace (outputs, unreleased tensors)
};

struct MemorySpan {
    TensorId tensor = kNoTensor;
    int buffer_id = 0;
    int allocator = 0;
    BufferAddress address;
    std::size_t size = 0;    // aligned bytes
    std::size_t first = 0;   // first position where it is live
    std::size_t end = 0;     // first position where it is not (trace size + 1 when kept)
    SpanEnd how_it_ends = SpanEnd::kept;
    TensorId in_place_of = kNoTensor;  // the parent whose memory it took over

    bool live_at(std::size_t position) const { return first <= position && position < end; }
};

// One chunk of an allocator, as large as it ever gets in the trace.
struct ChunkExtent {
    int allocator = 0;
    int chunk = 0;
    std::size_t size = 0;  // the highest high-water mark the trace reaches
};

class TraceSpans {
public:
    TraceSpans() = default;
    explicit TraceSpans(const Trace& trace);

    const std::vector<MemorySpan>& spans() const { return spans_; }
    // The span of `tensor` live at `position`, or else its latest one before it.
    const MemorySpan* span_at(TensorId tensor, std::size_t position) const;
    // Every span of a tensor (a tensor normally has one).
    std::vector<const MemorySpan*> spans_of(TensorId tensor) const;
    const std::vector<ChunkExtent>& chunks() const { return chunks_; }
    std::size_t chunk_size(int allocator, int chunk) const;
    // The event that gave the tensor memory first (its TensorAllocated or InPlaceReused).
    std::optional<std::size_t> placing_event(TensorId tensor) const;

private:
    std::vector<MemorySpan> spans_;
    std::vector<std::vector<std::size_t>> by_tensor_;  // span indices per tensor
    std::vector<ChunkExtent> chunks_;
};

} // namespace gallocsim::gui
