#pragma once
// Where each buffer's size was set, read off a trace: the event at which the buffer's
// high-water mark (its chunks together) first reached the size the plan ends with, the
// tensors that held memory there, and the holes below the high-water mark then: each hole's
// bytes by the tensor that last held them and the free that gave them back, and the request
// that went past it to the tail. This is the answer to "why is my compute buffer this big?":
// the buffer is as large as what was live at that event plus the holes between.

#include "simulator/trace/trace.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace gallocsim {

struct PeakTensor {
    TensorId tensor = kNoTensor;
    std::size_t bytes = 0;  // aligned bytes it held
    BufferAddress address;
};

// A run of a hole's bytes with one history. A hole is seldom one tensor's: frees merge with
// free neighbours, and a block handed to several smaller tensors comes back in pieces.
struct HoleBytes {
    std::size_t offset = 0;
    std::size_t size = 0;
    // The tensor whose memory they were last (a parent's, for bytes an in-place child gave back
    // past its own end); kNoTensor with no free: no tensor had them yet.
    TensorId last_holder = kNoTensor;
    std::optional<std::size_t> freed_at;  // the event (index) that gave them back
    // Where the last holder's block came from, so that a big block lent out in small pieces is
    // still told as the big tensor's: the tensor it took over in place (the first of a chain;
    // kNoTensor: none), and the tensor whose free gave back all of these bytes before the block
    // was taken, with that free (kNoTensor: the bytes came from more than one, or none).
    TensorId in_place_of = kNoTensor;
    TensorId carved_from = kNoTensor;
    std::optional<std::size_t> carved_from_freed_at;
};

// The request that could have used a hole and did not: the first allocation after the hole
// was complete that grew its buffer (a tail or a new chunk). Best fit takes a hole that can
// hold a request, so this request is what the hole was too small for.
struct TailRequest {
    std::size_t event = 0;  // index
    TensorId tensor = kNoTensor;
    std::size_t bytes = 0;  // aligned
};

struct PeakHole {
    int chunk = 0;
    std::size_t offset = 0;
    std::size_t size = 0;
    std::vector<HoleBytes> bytes;  // in address order, covering [offset, offset + size) exactly
    std::optional<TailRequest> passed_over_by;  // none: nothing grew the buffer after it was complete

    // The event that completed it (the last free of its bytes); none when no tensor had any of them.
    std::optional<std::size_t> completed_at() const;
};

struct BufferPeak {
    int buffer_id = 0;  // the lowest buffer id of the allocator
    std::size_t size = 0;                  // the high-water marks of its chunks together at the end of planning
    std::vector<std::size_t> chunk_sizes;  // each chunk's high-water mark
    std::optional<std::size_t> event;      // the event (index) that set the size; none when nothing was planned (a trace that only places)
    std::vector<PeakTensor> live;          // at that event, largest first
    std::vector<PeakHole> holes;           // below the high-water mark at that event, in address order

    std::size_t live_bytes() const;
    std::size_t hole_bytes() const;
};

// Whose memory a free gave back: the freed tensor's, or for the bytes an in-place child frees
// past its own end, its parent's (they were never the child's). kNoTensor: not a free.
TensorId freed_memory_of(const TraceEvent& event);

// One per allocator (buffer ids of one buffer type share one), in allocator order.
std::vector<BufferPeak> buffer_peaks(const Trace& trace);

// The node step of an event: 0 before the first node runs (leafs, inputs, the counting
// pass), i when graph.nodes[i - 1] is running, node_count after the last.
std::size_t node_step(const Trace& trace, const TraceEvent& event);

} // namespace gallocsim
