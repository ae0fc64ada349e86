#pragma once
// `gallocsim predict`'s answer, as data and its words: for each configuration a GGUF was given
// (context, micro-batch, batch, flash attention, KV type, GPU layers, sequences), what the real
// llama.cpp allocated as its compute buffers (read from the capture of its context creation, one
// session per configuration), what llama.cpp's own log said, where each buffer's size was set and
// by which tensor (why_report), ggml's plan against the in-place-aware bound and the best plan of
// the same blocks (the exact search, proven or not within its limit), and with a policy what it
// would have needed. The budget search ("the largest context that fits") is here too, as a
// sequence of contexts to try. The CLI runs llama.cpp and lays this out; nothing here runs it.

#include "simulator/analysis/planners.hpp"
#include "simulator/model/capture_session.hpp"
#include "reference/profile.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim {

// One combination of the options llama.cpp's context takes.
struct PredictConfig {
    std::size_t ctx = 4096;
    std::size_t ubatch = 512;
    std::size_t batch = 2048;
    std::string flash_attn = "auto";  // on, off, auto (llama.cpp resolves auto)
    std::string kv_type = "f16";
    int n_gpu_layers = 0;
    int parallel = 1;
    // An embedding context (pooled outputs, no logits), as encoders such as BERT run, made as
    // llama-cpp-python's Llama(embedding=True) makes it: a unified KV cache and, when `parallel`
    // is 1, as many sequences as a batch holds (up to llama.cpp's 256).
    bool embedding = false;

    // "ctx 4096, ubatch 512, batch 2048, flash attention off, KV f16, 0 GPU layers, 1 sequence"
    std::string text() const;
};

// One "<buffer type> <kind> buffer size = X MiB" line of llama.cpp's log, as it printed it.
struct LlamaLogSize {
    std::string buffer_type;  // "CPU", "CUDA0", "CPU_Mapped"
    std::string kind;         // compute, KV, RS, output, model
    std::string mib;          // "308.01": two decimals, as llama.cpp rounds

    // The bytes the line stands for (to llama.cpp's rounding: within 0.005 MiB).
    std::size_t approximate_bytes() const;
};

// What the helper that ran llama.cpp reported for a configuration.
struct LlamaAnswer {
    std::size_t n_ctx = 0;          // the context llama.cpp made (it may pad)
    std::size_t n_seq_max = 0;      // the sequences it made it for
    std::size_t weights_bytes = 0;  // llama_model_size: every weight tensor's bytes
    std::string flash_attn;         // on or off, as llama.cpp resolved it
    std::vector<LlamaLogSize> sizes;
    double seconds = 0;
    std::string error;  // llama.cpp refused the configuration: its own message

    // Every line of that kind added up, to llama.cpp's rounding (0 when none).
    std::size_t bytes_of(std::string_view kind) const;
    // The compute line of a buffer type ("308.01"), empty when llama.cpp printed none.
    std::string compute_mib(std::string_view buffer_type) const;
};

// One compute buffer type of one configuration.
struct PredictBuffer {
    std::string buffer_type;
    std::size_t bytes = 0;        // as llama.cpp allocated it: the capture's buffers of that type after the call that set them
    std::size_t replayed = 0;     // gallocsim's plan of the same graph: bytes - extra, unless the replay differs
    std::size_t extra = 0;        // what the buffer type allocated beyond what was asked (Vulkan_Host: 32 bytes a buffer)
    std::string log_mib;          // llama.cpp's own line for it, or empty
    std::string set_at;           // why_report's words: the event and node step that set the size
    std::string largest_live;     // "kq-0 (MUL_MAT, 256.00 MiB), the largest of 9 tensors live then"
    std::size_t lower_bound = 0;  // in-place-aware
    std::size_t best_plan = 0;    // the best planner on the same blocks
    std::string best_planner;
    bool optimal = false;         // the best plan is proven optimal
    std::string bound_text;       // why_report's sentence
    std::optional<std::size_t> policy_bytes;  // with --policy: that policy's plan of the graph

};

struct PredictRow {
    PredictConfig config;
    LlamaAnswer llama;
    std::string session;  // "session-3.jsonl" in the capture folder
    int call = 0;         // the call that set the largest buffer
    std::vector<PredictBuffer> buffers;
    std::string error;    // why no prediction: llama.cpp's refusal, or a capture that cannot be read
    double seconds = 0;   // the whole configuration: llama.cpp's context and gallocsim's analysis
    // Which state explains the buffers, where the program's ggml does not say exactly
    // (VersionMatch::note, conform's words); empty when it does.
    std::string version_note;

    std::size_t compute_bytes() const;
    // ggml's plans of the buffer types together against their bounds together: "+16.00 MiB (5.5 %)",
    // or "none" when the plans meet them. (A buffer type's extra bytes are no part of a plan.)
    std::string over_bound_text() const;
    // The same against the best plans, with "(optimum)" when every one is proven optimal, else
    // "(optimum not proven)": then the best plan is only an upper bound on the optimum.
    std::string over_best_text() const;
    // Weights, KV (and recurrent state), output and compute, as llama.cpp counts them.
    std::size_t total_bytes() const;
    // Which part of the total is largest: "weights", "KV cache", "compute buffers", "output buffer".
    std::string largest_part() const;
};

// Reads one configuration's session of a capture: the call that set its largest buffer, the
// buffers llama.cpp allocated per buffer type, and that call's graph planned by the session's
// own ggml version (and by `policy` when given) for what sets each buffer and the bounds.
// Errors (a session without calls, a graph that cannot be read) are the row's `error`.
PredictRow predict_row(const CaptureSession& session, const PredictConfig& config, const LlamaAnswer& llama,
                       const AllocatorProfile* policy, const ExactLimits& limits);

// The largest context whose total fits a budget, found with real reserves: contexts double
// from `start` until one does not fit (or `most` is reached), then bisect between the last
// that fit and the first that did not, to a multiple of `granularity`.
class ContextSearch {
public:
    ContextSearch(std::size_t start, std::size_t most, std::size_t granularity);
    // The next context to try, none when the search is over.
    std::optional<std::size_t> next() const;
    void record(std::size_t ctx, bool fits);
    // The largest context that fit, 0 when none did.
    std::size_t best() const { return fit_; }
    // True when the largest allowed context fit: the budget is not what stops it.
    bool reached_most() const { return fit_ == most_; }

private:
    std::size_t most_, granularity_;
    std::size_t fit_ = 0;         // the largest that fit
    std::size_t too_large_ = 0;   // the smallest that did not, 0: none yet
    std::size_t doubling_;        // the next context while doubling, 0 once bisecting
};

// Sizes as the command line writes them: "24GiB", "512MiB", "1.5GB" (SI), "1000000" (bytes).
// None for text of another shape.
std::optional<std::size_t> parse_byte_size(std::string_view text);

} // namespace gallocsim
