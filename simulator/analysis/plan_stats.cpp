#include "simulator/analysis/plan_stats.hpp"

#include "simulator/model/amount_text.hpp"
#include "simulator/trace/explain.hpp"
#include "simulator/trace/peak.hpp"

#include <variant>

namespace gallocsim {

std::size_t PlanStats::allocations() const {
    return count(EventKind::leaf_allocated) + count(EventKind::input_allocated) + count(EventKind::parent_allocated) +
           count(EventKind::node_allocated);
}

double PlanStats::holes_share() const {
    return size == 0 ? 0.0 : static_cast<double>(holes_at_size) / static_cast<double>(size);
}

PlanStats plan_stats(const Trace& trace, bool with_rows, const std::function<void(std::size_t)>& on_event) {
    PlanStats stats;
    if (with_rows) {
        stats.rows.reserve(trace.size());
    }
    SimState state = initial_state(trace);
    while (state.position < trace.size()) {
        const TraceEvent& event = trace.events[state.position];
        const EventKind kind = kind_of(event);
        stats.kinds[static_cast<std::size_t>(kind)] += 1;
        if (const auto* allocated = std::get_if<Recorded<event::TensorAllocated>>(&event.data)) {
            stats.choices[static_cast<std::size_t>(trace.taken(*allocated).choice)] += 1;
        }
        apply_next(state, trace);
        if (on_event) {
            on_event(state.position);
        }
        const MemoryStats memory = memory_stats(state);
        if (memory.live_bytes > stats.peak_live) {
            stats.peak_live = memory.live_bytes;
            stats.peak_live_event = state.position;
        }
        if (memory.fragmentation > stats.worst_fragmentation) {
            stats.worst_fragmentation = memory.fragmentation;
            stats.worst_fragmentation_event = state.position;
        }
        if (with_rows) {
            stats.rows.push_back({state.position, kind, node_step(trace, event), memory});
        }
    }
    stats.at_end = memory_stats(state);
    for (const int id : trace.allocator_buffer_ids()) {
        stats.high_water_per_buffer.push_back({id, memory_stats(state.allocator_of(trace, id)).high_water});
    }
    for (const BufferPeak& peak : buffer_peaks(trace)) {
        stats.holes_at_size += peak.hole_bytes();
        stats.size += peak.size;
    }
    return stats;
}

std::string memory_text(const MemoryStats& memory) {
    return byte_count(memory.live_bytes) + " live, high-water mark " + byte_count(memory.high_water) + ", " +
           byte_count(memory.free_bytes) + " free below it, " + percent1(memory.hole_share()) + " of it in holes (largest hole " +
           std::to_string(memory.largest_free) + ", fragmentation " + fixed2(memory.fragmentation) + ")";
}

namespace {

// "event 180 (node step 28, node-allocated ffn_up-0)"
std::string event_position(const Trace& trace, std::size_t event) {
    const TraceEvent& e = trace.events[event - 1];
    const auto touched = touched_tensors(e);
    return "event " + std::to_string(event) + " (node step " + std::to_string(node_step(trace, e)) + ", " +
           std::string(kind_name(kind_of(e))) + (touched.empty() ? "" : " " + trace.tensor(touched.front()).name) + ")";
}

std::string high_water_line(const PlanStats& stats) {
    std::string line = "high-water mark: " + byte_count(stats.at_end.high_water);
    if (stats.high_water_per_buffer.size() > 1) {
        std::string per_buffer;
        for (const BufferHighWater& buffer : stats.high_water_per_buffer) {
            per_buffer += (per_buffer.empty() ? "" : "; ") + std::string("buffer ") + std::to_string(buffer.buffer) + ": " +
                          std::to_string(buffer.bytes);
        }
        line += " (" + per_buffer + ")";
    }
    if (stats.peak_live > 0) {
        line += ", " + fixed2(static_cast<double>(stats.at_end.high_water) / static_cast<double>(stats.peak_live)) +
                " times the peak live bytes";
    }
    return line;
}

} // namespace

PlanStatsWords plan_stats_words(const Trace& trace, const PlanStats& stats) {
    PlanStatsWords words;
    words.heading = "Whole plan (" + counted(trace.size(), "event") + ", " + counted(trace.node_count, "node step") + "):";
    words.lines.push_back("peak live bytes: " + byte_count(stats.peak_live) +
                          (stats.peak_live_event > 0 ? " at " + event_position(trace, stats.peak_live_event) : ""));
    words.lines.push_back(high_water_line(stats));
    words.lines.push_back("in holes when each buffer's size was set: " + byte_count(stats.holes_at_size) + ", " +
                          percent1(stats.holes_share()) + " of the high-water mark (gallocsim why tells each hole)");
    const MemoryStats& end = stats.at_end;
    words.lines.push_back("at the end: " + byte_count(end.live_bytes) + " live, " + byte_count(end.free_bytes) +
                          " free below the high-water mark, " + percent1(end.hole_share()) + " of it (largest hole " +
                          std::to_string(end.largest_free) + ", fragmentation " + fixed2(end.fragmentation) + ")");
    words.lines.push_back("worst fragmentation (1 - largest hole / free bytes: how scattered the holes are, not how many bytes): " +
                          fixed2(stats.worst_fragmentation) +
                          (stats.worst_fragmentation_event > 0 ? " at " + event_position(trace, stats.worst_fragmentation_event) : ""));
    words.lines.push_back("allocations: " + std::to_string(stats.allocations()) + " (" + std::to_string(stats.choices[0]) +
                          " best fit, " + std::to_string(stats.choices[1]) + " from a tail, " + std::to_string(stats.choices[2]) +
                          " in a new chunk); in-place reuses: " + std::to_string(stats.count(EventKind::in_place_reused)) + " (" +
                          std::to_string(stats.count(EventKind::in_place_rejected)) + " candidates rejected); frees: " +
                          std::to_string(stats.count(EventKind::tensor_freed)) + " (+" +
                          std::to_string(stats.count(EventKind::extra_space_freed)) + " extra-space frees); outputs kept: " +
                          std::to_string(stats.count(EventKind::output_kept)));
    return words;
}

} // namespace gallocsim
