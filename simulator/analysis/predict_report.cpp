#include "simulator/analysis/predict_report.hpp"

#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/why_report.hpp"
#include "simulator/model/amount_text.hpp"
#include "simulator/model/capture_call.hpp"
#include "simulator/trace/capture_replay.hpp"
#include "simulator/trace/peak.hpp"
#include "simulator/trace/scheduler_splits.hpp"
#include "reference/ops.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace gallocsim {

std::string PredictConfig::text() const {
    return "ctx " + std::to_string(ctx) + ", ubatch " + std::to_string(ubatch) + ", batch " + std::to_string(batch) +
           ", flash attention " + flash_attn + ", KV " + kv_type + ", " + counted(static_cast<std::uint64_t>(n_gpu_layers), "GPU layer") +
           ", " + counted(static_cast<std::uint64_t>(parallel), "sequence") + (embedding ? ", embeddings" : "");
}

std::size_t LlamaLogSize::approximate_bytes() const {
    double value = 0;
    try {
        value = std::stod(mib);
    } catch (const std::exception&) {
        return 0;
    }
    return static_cast<std::size_t>(std::llround(value * 1024.0 * 1024.0));
}

std::size_t LlamaAnswer::bytes_of(std::string_view kind) const {
    std::size_t total = 0;
    for (const LlamaLogSize& size : sizes) {
        total += size.kind == kind ? size.approximate_bytes() : 0;
    }
    return total;
}

std::string LlamaAnswer::compute_mib(std::string_view buffer_type) const {
    for (const LlamaLogSize& size : sizes) {
        if (size.kind == "compute" && size.buffer_type == buffer_type) {
            return size.mib;
        }
    }
    return {};
}

namespace {

// "+16.00 MiB (5.5%)": what a plan needs over another, or "none" when it needs no more.
std::string excess_text(std::size_t size, std::size_t reference) {
    if (size <= reference) {
        return "none";
    }
    return "+" + binary_size(size - reference) + " (" + gap_text(size, reference) + ")";
}

} // namespace


std::size_t PredictRow::compute_bytes() const {
    std::size_t total = 0;
    for (const PredictBuffer& buffer : buffers) {
        total += buffer.bytes;
    }
    return total;
}

std::string PredictRow::over_bound_text() const {
    std::size_t planned = 0, bound = 0;
    for (const PredictBuffer& buffer : buffers) {
        planned += buffer.replayed;
        bound += buffer.lower_bound;
    }
    return excess_text(planned, bound);
}

std::string PredictRow::over_best_text() const {
    std::size_t planned = 0, best = 0;
    bool optimal = !buffers.empty();
    for (const PredictBuffer& buffer : buffers) {
        planned += buffer.replayed;
        best += buffer.best_plan;
        optimal = optimal && buffer.optimal;
    }
    return excess_text(planned, best) + (optimal ? " (optimum)" : " (optimum not proven)");
}

std::size_t PredictRow::total_bytes() const {
    return llama.weights_bytes + llama.bytes_of("KV") + llama.bytes_of("RS") + llama.bytes_of("output") + compute_bytes();
}

std::string PredictRow::largest_part() const {
    const std::pair<std::size_t, const char*> parts[] = {{llama.weights_bytes, "weights"},
                                                         {llama.bytes_of("KV") + llama.bytes_of("RS"), "KV cache"},
                                                         {compute_bytes(), "compute buffers"},
                                                         {llama.bytes_of("output"), "output buffer"}};
    return std::ranges::max(parts, {}, &std::pair<std::size_t, const char*>::first).second;
}

namespace {

struct TypeBytes {
    std::string type;
    std::size_t bytes = 0;
    std::size_t extra = 0;
};

// What buffer `id` of buffer type `type` got beyond what was asked when it reached `size`: the
// type's extra for each chunk (each chunk is a backend buffer of its own).
std::size_t extra_of(const CaptureSession& session, std::size_t id, std::size_t size, std::size_t type) {
    for (const CapturedCall& call : session.calls) {
        if (id < call.buffer_sizes.size() && call.buffer_sizes[id] == size && size > 0) {
            if (!call.buffer_extra || type >= call.buffer_extra->size()) {
                return 0;
            }
            std::size_t chunks = 1;
            if (id < call.chunk_sizes.size()) {
                chunks = std::max<std::size_t>(1, std::ranges::count_if(call.chunk_sizes[id], [](std::size_t c) { return c > 0; }));
            }
            return (*call.buffer_extra)[type] * chunks;
        }
    }
    return 0;
}

// The bytes each buffer type holds after the session's calls (a buffer only grows: its last
// size is its largest), summed over the buffers of the type, in the session's type order, with
// what the type added beyond what was asked to each of its buffers (the capture's buffer_extra).
std::vector<TypeBytes> allocated_by_type(const CaptureSession& session) {
    std::vector<std::size_t> largest(session.buffers.size(), 0);
    for (const CapturedCall& call : session.calls) {
        for (std::size_t id = 0; id < call.buffer_sizes.size() && id < largest.size(); ++id) {
            largest[id] = std::max(largest[id], call.buffer_sizes[id]);
        }
    }
    std::vector<TypeBytes> by_type;
    for (const BufferTypeSpec& type : session.buffer_types) {
        by_type.push_back({type.name, 0, 0});
    }
    for (std::size_t id = 0; id < largest.size(); ++id) {
        const auto type = static_cast<std::size_t>(session.buffers[id]);
        by_type.at(type).bytes += largest[id];
        by_type.at(type).extra += extra_of(session, id, largest[id], type);
    }
    return by_type;
}

// "kq-0 (MUL_MAT, 256.00 MiB), the largest of 9 tensors live then"
std::string largest_live_text(const Trace& trace, const BufferPeak& peak) {
    if (peak.live.empty()) {
        return {};
    }
    const TraceTensor& tensor = trace.tensor(peak.live.front().tensor);
    return tensor.name + " (" + std::string(op_name(tensor.op)) + ", " + binary_size(peak.live.front().bytes) +
           "), the largest of " + counted(peak.live.size(), "tensor") + " live then";
}

// The buffer type's sizes under another policy: its plan of the same graph.
std::map<std::string, std::size_t> policy_sizes(const GraphFile& file, const AllocatorProfile& policy) {
    const GgmlPlan plan = run_ggml_plan(file, policy);
    std::map<std::string, std::size_t> sizes;
    for (const BufferPeak& peak : buffer_peaks(plan.trace)) {
        const auto id = static_cast<std::size_t>(peak.buffer_id);
        sizes[file.buffer_types[static_cast<std::size_t>(file.buffers[id])].name] += peak.size;
    }
    return sizes;
}

void explain_buffers(const GraphFile& file, const AllocatorProfile& profile, const AllocatorProfile* policy,
                     const ExactLimits& limits, PredictRow& row) {
    const GgmlPlan ggml = run_ggml_plan(file, profile);
    const std::vector<BufferPeak> peaks = buffer_peaks(ggml.trace);
    const Comparison comparison = compare_planners(file, ggml, limits);
    const SchedulerSplits splits = scheduler_splits(ggml.trace);
    const std::map<std::string, std::size_t> with_policy = policy != nullptr ? policy_sizes(file, *policy)
                                                                              : std::map<std::string, std::size_t>{};
    for (const BufferPeak& peak : peaks) {
        const auto id = static_cast<std::size_t>(peak.buffer_id);
        const BufferTypeSpec& type = file.buffer_types[static_cast<std::size_t>(file.buffers[id])];
        const auto buffer = std::ranges::find(row.buffers, type.name, &PredictBuffer::buffer_type);
        if (buffer == row.buffers.end()) {
            continue;
        }
        const auto arena = std::ranges::find(comparison.arenas, type.name, &ArenaComparison::buffer_type);
        // No what-if plans: each would plan the whole graph again, and predict asks only where.
        const BufferAnswer answer{&peak, &type, arena != comparison.arenas.end() ? &*arena : nullptr, {}, {}, {}, {}};
        const BufferWords words = buffer_words(ggml.trace, ggml.lifetimes, splits, answer);
        buffer->replayed += peak.size;
        buffer->set_at = words.high_water;
        buffer->largest_live = largest_live_text(ggml.trace, peak);
        buffer->lower_bound = answer.lower_bound();
        buffer->best_plan = answer.best_alternative();
        buffer->best_planner = answer.best_planner();
        buffer->optimal = answer.arena != nullptr && answer.arena->best_alternative().outcome.proved_optimal;
        buffer->bound_text = words.bound;
        if (const auto it = with_policy.find(type.name); it != with_policy.end()) {
            buffer->policy_bytes = it->second;
        }
    }
}

} // namespace

PredictRow predict_row(const CaptureSession& session, const PredictConfig& config, const LlamaAnswer& llama,
                       const AllocatorProfile* policy, const ExactLimits& limits) {
    PredictRow row{config, llama, session.label(), 0, {}, {}, 0, {}};
    try {
        Capture one;
        one.folder = session.folder;
        one.sessions.push_back(session);
        const PickedCall picked = call_that_set_the_largest_buffer(one);
        row.call = picked.call->number;
        for (const TypeBytes& type : allocated_by_type(session)) {
            if (type.bytes > 0) {
                row.buffers.push_back(
                    PredictBuffer{type.type, type.bytes, 0, type.extra, llama.compute_mib(type.type), {}, {}, 0, 0, {}, false, {}, {}});
            }
        }
        const VersionMatch version = session_profile(session);
        const AllocatorProfile& profile = version.profile != nullptr ? *version.profile : newest_profile();
        row.version_note = version.profile != nullptr || version.note.empty()
                               ? version.note
                               : version.note + "; explained by the newest state, " + std::string(profile.name);
        explain_buffers(load_call_graph(session, *picked.call), profile, policy, limits, row);
    } catch (const GraphFileError& error) {
        row.error = error.what();
    }
    return row;
}

ContextSearch::ContextSearch(std::size_t start, std::size_t most, std::size_t granularity)
    : most_(most), granularity_(std::max<std::size_t>(granularity, 1)), doubling_(std::min(start, most)) {}

std::optional<std::size_t> ContextSearch::next() const {
    if (doubling_ != 0) {
        return doubling_;
    }
    if (too_large_ == 0) {
        return std::nullopt;  // the largest allowed fit
    }
    // Bisect on multiples of the granularity strictly between the last fit and the first misfit.
    const std::size_t low = fit_ / granularity_, high = (too_large_ - 1) / granularity_;
    if (high <= low) {
        return std::nullopt;
    }
    const std::size_t middle = (low + high + 1) / 2;
    return middle * granularity_;
}

void ContextSearch::record(std::size_t ctx, bool fits) {
    if (fits) {
        fit_ = std::max(fit_, ctx);
    } else if (too_large_ == 0 || ctx < too_large_) {
        too_large_ = ctx;
    }
    if (doubling_ != 0) {
        if (!fits) {
            doubling_ = 0;
        } else if (ctx >= most_) {
            doubling_ = 0;
        } else {
            doubling_ = std::min(ctx * 2, most_);
        }
    }
}

std::optional<std::size_t> parse_byte_size(std::string_view text) {
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || value < 0 || end == text.data()) {
        return std::nullopt;
    }
    std::string unit(end, text.data() + text.size());
    std::ranges::transform(unit, unit.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    static const std::map<std::string, double> units{
        {"", 1.0},           {"b", 1.0},           {"kib", 1024.0},       {"mib", 1024.0 * 1024},
        {"gib", 1024.0 * 1024 * 1024}, {"tib", 1024.0 * 1024 * 1024 * 1024}, {"kb", 1e3}, {"mb", 1e6},
        {"gb", 1e9},         {"tb", 1e12}};
    const auto it = units.find(unit);
    if (it == units.end()) {
        return std::nullopt;
    }
    return static_cast<std::size_t>(std::llround(value * it->second));
}

} // namespace gallocsim
