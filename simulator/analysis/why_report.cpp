#include "simulator/analysis/why_report.hpp"

#include "simulator/model/amount_text.hpp"
#include "simulator/analysis/analysis.hpp"
#include "simulator/trace/explain.hpp"

#include <algorithm>
#include <climits>
#include <numeric>

namespace gallocsim {

std::vector<HoleMaker> hole_makers(const PeakHole& hole) {
    // A run counts for each tensor whose memory it was: its last holder, the tensor that holder
    // took over in place, and the one whose freed block it was carved from.
    std::vector<HoleMaker> makers;
    const auto credit = [&](TensorId tensor, std::size_t bytes) {
        if (tensor == kNoTensor) {
            return;
        }
        auto maker = std::ranges::find(makers, tensor, &HoleMaker::tensor);
        if (maker == makers.end()) {
            maker = makers.insert(makers.end(), HoleMaker{tensor, 0, std::nullopt, false});
        }
        maker->bytes += bytes;
    };
    for (const HoleBytes& run : hole.bytes) {
        credit(run.last_holder, run.size);
        credit(run.in_place_of, run.size);
        credit(run.carved_from, run.size);
    }
    std::ranges::stable_sort(makers, std::greater{}, &HoleMaker::bytes);
    return makers;
}

namespace {

// The holes that get what-ifs: the kCostedTensors largest (the first of equals), by index.
std::vector<std::size_t> costed_holes(const BufferPeak& peak) {
    std::vector<std::size_t> order(peak.holes.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::ranges::stable_sort(order, std::greater{}, [&](std::size_t i) { return peak.holes[i].size; });
    order.resize(std::min(order.size(), kCostedTensors));
    return order;
}

void add_to_group(std::vector<LiveGroup>& groups, std::string name, std::size_t bytes) {
    auto group = std::ranges::find(groups, name, &LiveGroup::name);
    if (group == groups.end()) {
        group = groups.insert(groups.end(), LiveGroup{std::move(name), 0, 0});
    }
    group->bytes += bytes;
    ++group->tensors;
}

std::vector<LiveGroup> live_by_op(const Trace& trace, const BufferPeak& peak) {
    std::vector<LiveGroup> groups;
    for (const PeakTensor& live : peak.live) {
        const TraceTensor& tensor = trace.tensor(live.tensor);
        add_to_group(groups, tensor.role == TensorRole::leaf ? "leaf" : std::string(op_name(tensor.op)), live.bytes);
    }
    std::ranges::stable_sort(groups, std::greater{}, &LiveGroup::bytes);
    return groups;
}

std::vector<LiveGroup> live_by_layer(const Trace& trace, const BufferPeak& peak) {
    std::vector<std::pair<int, std::size_t>> layered;  // (layer or INT_MAX, live index)
    for (std::size_t i = 0; i < peak.live.size(); ++i) {
        layered.emplace_back(layer_of_name(trace.tensor(peak.live[i].tensor).name).value_or(INT_MAX), i);
    }
    if (std::ranges::all_of(layered, [](const auto& l) { return l.first == INT_MAX; })) {
        return {};
    }
    std::ranges::stable_sort(layered, {}, &std::pair<int, std::size_t>::first);
    std::vector<LiveGroup> groups;
    for (const auto& [layer, i] : layered) {
        add_to_group(groups, layer == INT_MAX ? "no layer" : "layer " + std::to_string(layer), peak.live[i].bytes);
    }
    return groups;
}

} // namespace

std::optional<int> layer_of_name(std::string_view name) {
    // ggml's own suffixes come after the name proper: " (view)", " (copy of x)", and ours "#2" for a repeat.
    if (const auto paren = name.find(" ("); paren != std::string_view::npos) {
        name = name.substr(0, paren);
    }
    if (const auto repeat = name.rfind('#'); repeat != std::string_view::npos) {
        name = name.substr(0, repeat);
    }
    const auto dash = name.rfind('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 == name.size() || name.size() - dash > 6) {
        return std::nullopt;
    }
    int layer = 0;
    for (const char c : name.substr(dash + 1)) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        layer = layer * 10 + (c - '0');  // at most five digits: no overflow
    }
    return layer;
}

std::string live_groups_text(const std::vector<LiveGroup>& groups) {
    std::string text;
    for (const LiveGroup& group : groups) {
        text += (text.empty() ? "" : ", ") + group.name + " " + binary_size(group.bytes) + " (" + counted(group.tensors, "tensor") + ")";
    }
    return text;
}

std::string live_by_layer_text(const BufferAnswer& answer) {
    if (answer.live_by_layer.empty()) {
        return "no live tensor's name carries a layer number (llama.cpp names a layer's tensors name-N): no split by layer";
    }
    return live_groups_text(answer.live_by_layer);
}

std::vector<BufferAnswer> why_answers(const GraphFile& file, const AllocatorProfile& profile, const Trace& trace,
                                      const Comparison& comparison, const std::vector<BufferPeak>& peaks,
                                      PlanRun plan_run) {
    // The tensors whose what-if plans the answers quote, each once, in the order asked.
    std::vector<TensorId> asked;
    const auto ask = [&](TensorId tensor) {
        if (tensor != kNoTensor && std::ranges::find(asked, tensor) == asked.end()) {
            asked.push_back(tensor);
        }
    };
    for (const BufferPeak& peak : peaks) {
        for (std::size_t i = 0; i < std::min(peak.live.size(), kCostedTensors); ++i) {
            ask(peak.live[i].tensor);
        }
        for (const std::size_t i : costed_holes(peak)) {
            const std::vector<HoleMaker> makers = hole_makers(peak.holes[i]);
            for (std::size_t m = 0; m < std::min(makers.size(), kCostedHoleMakers); ++m) {
                ask(makers[m].tensor);
            }
        }
    }
    const std::vector<std::vector<std::size_t>> planned = buffer_sizes_without_each(file, profile, asked, std::move(plan_run));
    const auto sizes_without = [&](TensorId tensor) -> const std::vector<std::size_t>& {
        return planned[static_cast<std::size_t>(std::ranges::find(asked, tensor) - asked.begin())];
    };
    std::vector<BufferAnswer> answers;
    for (const BufferPeak& peak : peaks) {
        const auto id = static_cast<std::size_t>(peak.buffer_id);
        const BufferTypeSpec& type = file.buffer_types[static_cast<std::size_t>(file.buffers[id])];
        const auto arena = std::ranges::find(comparison.arenas, type.name, &ArenaComparison::buffer_type);
        BufferAnswer& a = answers.emplace_back(BufferAnswer{&peak, &type, arena != comparison.arenas.end() ? &*arena : nullptr, {}, {}, {}, {}});
        const auto buffer_size = [&](const std::vector<std::size_t>& sizes) {
            return id < sizes.size() ? std::optional(sizes[id]) : std::nullopt;
        };
        for (std::size_t i = 0; i < std::min(peak.live.size(), kCostedTensors); ++i) {
            a.size_without.push_back(buffer_size(sizes_without(peak.live[i].tensor)));
        }
        for (const PeakHole& hole : peak.holes) {
            a.holes.push_back({&hole, hole_makers(hole)});
        }
        a.live_by_op = live_by_op(trace, peak);
        a.live_by_layer = live_by_layer(trace, peak);
        for (const std::size_t i : costed_holes(peak)) {
            std::vector<HoleMaker>& makers = a.holes[i].makers;
            for (std::size_t m = 0; m < std::min(makers.size(), kCostedHoleMakers); ++m) {
                makers[m].size_without = buffer_size(sizes_without(makers[m].tensor));
                makers[m].costed = true;
            }
        }
    }
    return answers;
}

namespace {

// "300.01 MiB (saves 8.00 MiB)"; "(saves nothing)" when another tensor sets the same mark
// without it (a later layer's twin); more when its in-place children lose its memory.
std::string cost_text(const std::optional<std::size_t>& without, std::size_t size) {
    if (!without) {
        return "the plan fails";
    }
    if (*without >= size) {
        return binary_size(*without) + (*without == size ? " (saves nothing)" : " (more: in-place reuse of it is lost)");
    }
    return binary_size(*without) + " (saves " + binary_size(size - *without) + ")";
}

} // namespace

std::string BufferAnswer::bound_text() const {
    if (arena == nullptr) {
        return "";
    }
    const AlternativePlan& best = arena->best_alternative();
    std::string text = "in-place-aware lower bound (" + arena->buffer_type + "): " + byte_count(lower_bound()) +
                       "; best plan of the same blocks, " + std::string(best.planner->title) + ": " +
                       byte_count(best.outcome.plan.size);
    // The exact search is never above a heuristic, so the best plan is its plan, with its note
    // (optimal, or how far from the optimum it can be).
    return best.outcome.note.empty() ? text : text + ", " + best.outcome.note;
}

std::string BufferAnswer::without_text(std::size_t i) const {
    return i < size_without.size() ? "without it: " + cost_text(size_without[i], peak->size) : std::string();
}

std::string hole_title(const PeakHole& hole) {
    return "chunk " + std::to_string(hole.chunk) + " [" + std::to_string(hole.offset) + ", " +
           std::to_string(hole.offset + hole.size) + "): " + binary_size(hole.size) + " (" +
           counted(hole.size, "byte") + ")";
}

std::string hole_bytes_text(const Trace& trace, const HoleBytes& run) {
    std::string text = "[" + std::to_string(run.offset) + ", " + std::to_string(run.offset + run.size) + ") " +
                       binary_size(run.size) + ": ";
    if (run.last_holder == kNoTensor) {
        return text + "no tensor had these bytes yet in this plan";
    }
    text += trace.tensor(run.last_holder).name + "'s memory";
    if (run.freed_at) {
        const TraceEvent& freed = trace.events[*run.freed_at];
        text += ", given back at event " + std::to_string(*run.freed_at + 1) + " (node step " +
                std::to_string(node_step(trace, freed)) + ")";
        if (std::holds_alternative<Recorded<event::ExtraSpaceFreed>>(freed.data)) {
            text += ", past the end of " + trace.tensor(freed.node).name + ", which took it over in place";
        }
    }
    if (run.in_place_of != kNoTensor) {
        text += "; it had taken over " + trace.tensor(run.in_place_of).name + "'s in place";
    }
    if (run.carved_from != kNoTensor) {
        text += "; carved from " + trace.tensor(run.carved_from).name + "'s block, given back at event " +
                std::to_string(*run.carved_from_freed_at + 1);
    }
    return text;
}

std::string hole_stays_text(const Trace& trace, const PeakHole& hole) {
    if (!hole.passed_over_by) {
        return "nothing grew the buffer after it was complete";
    }
    const TailRequest& request = *hole.passed_over_by;
    const std::string what = trace.tensor(request.tensor).name + " (" + binary_size(request.bytes) + ", event " +
                             std::to_string(request.event + 1) + ")";
    if (request.bytes > hole.size) {
        return "it stayed a hole: the next request that grew the buffer after it was complete, " + what +
               ", is larger than it";
    }
    // Best fit would take a hole this large: only a policy's block rule or a chunk's tail rule passes it by.
    return "the next request that grew the buffer after it was complete, " + what +
           ", would have fit in it: the allocator's block choice passed it by";
}

std::vector<std::string> hole_what_if_texts(const Trace& trace, const BufferAnswer& answer, std::size_t i) {
    std::vector<std::string> texts;
    if (i >= answer.holes.size()) {
        return texts;
    }
    for (const HoleMaker& maker : answer.holes[i].makers) {
        if (maker.costed) {
            texts.push_back("without " + trace.tensor(maker.tensor).name + ": " + cost_text(maker.size_without, answer.peak->size));
        }
    }
    return texts;
}

namespace {

std::string title_words(const BufferAnswer& answer) {
    const BufferPeak& peak = *answer.peak;
    std::string title = "buffer " + std::to_string(peak.buffer_id) + " (" + answer.type->name + ", alignment " +
                        std::to_string(answer.type->alignment) + "): " + byte_count(peak.size);
    if (peak.chunk_sizes.size() > 1) {
        title += " in " + std::to_string(peak.chunk_sizes.size()) + " chunks:";
        for (const std::size_t size : peak.chunk_sizes) {
            title += " " + std::to_string(size);
        }
    }
    return title;
}

// "event 9 of 20 (node-allocated), node step 3 of 5 (mul running)"
std::string event_words(const Trace& trace, std::size_t event) {
    const TraceEvent& e = trace.events[event];
    std::string text = "event " + std::to_string(event + 1) + " of " + std::to_string(trace.size()) + " (" +
                       std::string(kind_name(kind_of(e))) + "), node step " + std::to_string(node_step(trace, e)) + " of " +
                       std::to_string(trace.node_count);
    return text + (e.node != kNoTensor ? " (" + trace.tensor(e.node).name + " running)" : " (before the first node)");
}

std::string verdict_words(const BufferAnswer& answer) {
    const std::size_t size = answer.peak->size;
    const std::size_t bound = answer.lower_bound();
    if (size > bound) {
        return "the allocator's choices cost " + byte_count(size - bound) + " (" + percent_of(size - bound, bound) +
               ") over the bound";
    }
    return "the plan meets the bound: only a different in-place decision or graph could need less";
}

} // namespace

BufferWords buffer_words(const Trace& trace, const GraphLifetimes& lifetimes, const SchedulerSplits& splits,
                         const BufferAnswer& answer) {
    const BufferPeak& peak = *answer.peak;
    BufferWords words;
    words.title = title_words(answer);
    if (!peak.event) {
        // No event raised its high-water mark: no tensor went there, or only zero-byte ones.
        words.empty = "no tensor in it ever took a byte";
        return words;
    }
    words.high_water = "its high-water mark was set at " + event_words(trace, *peak.event);
    words.live = "live then: " + counted(peak.live.size(), "tensor") + ", " + byte_count(peak.live_bytes());
    for (std::size_t i = 0; i < peak.live.size(); ++i) {
        const TraceTensor& tensor = trace.tensor(peak.live[i].tensor);
        const std::optional<int> split = splits.split_of(tensor);
        words.live_tensors.push_back({peak.live[i].tensor,
                                      tensor.role == TensorRole::leaf ? "leaf" : std::string(op_name(tensor.op)),
                                      split ? "split #" + std::to_string(*split) : "", peak.live[i].bytes,
                                      lifetime_end_text(trace, lifetimes, peak.live[i].tensor), answer.without_text(i)});
    }
    words.live_by_op = "live then by op: " + live_groups_text(answer.live_by_op);
    words.live_by_layer = "live then by layer: " + live_by_layer_text(answer);
    words.holes = "holes below the high-water mark then: " + counted(peak.holes.size(), "hole") + ", " +
                  byte_count(peak.hole_bytes());
    for (std::size_t h = 0; h < peak.holes.size(); ++h) {
        HoleWords hole{hole_title(peak.holes[h]), {}};
        for (const HoleBytes& run : peak.holes[h].bytes) {
            hole.lines.push_back(hole_bytes_text(trace, run));
        }
        hole.lines.push_back(hole_stays_text(trace, peak.holes[h]));
        for (std::string& what_if : hole_what_if_texts(trace, answer, h)) {
            hole.lines.push_back(std::move(what_if));
        }
        words.hole_list.push_back(std::move(hole));
    }
    if (answer.arena != nullptr) {
        words.bound = answer.bound_text();
        words.bound_at = "the bound is reached at " + bound_position_text(trace, *answer.arena);
        words.verdict = verdict_words(answer);
    }
    return words;
}

} // namespace gallocsim
