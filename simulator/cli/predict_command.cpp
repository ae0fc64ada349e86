// `gallocsim predict MODEL.gguf`: a GGUF's compute buffers at any context, as the real llama.cpp
// allocates them, without its weights. The helper simulator/predict/predict_reserve.py (next to
// this executable) writes a weightless copy of the GGUF and has llama-cpp-python create one
// context per configuration on it, under the capture library; each context is one session of
// the capture, which analysis/predict_report reads. predict_run runs the helper; this file turns
// the options into configurations, drives the table or the budget's search, and lays them out.
#include "simulator/analysis/predict_report.hpp"
#include "simulator/live/program_run.hpp"
#include "simulator/model/amount_text.hpp"
#include "simulator/model/visible_text.hpp"

#include "simulator/cli/command_list.hpp"
#include "simulator/cli/predict_run.hpp"
#include "simulator/cli/errors.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace gallocsim::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The KV cache types llama.cpp's context accepts (its --cache-type-k list).
const std::set<std::string, std::less<>> kKvTypes{"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"};

struct PredictOptions {
    std::string model;
    std::vector<std::string> ctx{"4096"}, ubatch{"512"}, batch{"2048"}, flash_attn{"auto"}, kv_type{"f16"},
        n_gpu_layers{"0"}, parallel{"1"};
    std::string python;  // --python, else $GALLOCSIM_PYTHON, else the build's default
    std::string out;     // keep the captures here
    std::string policy;
    std::string budget;
    std::string svg;
    bool json = false;
    bool verbose = false;
    bool embedding = false;
};

// ---- the options as configurations -------------------------------------------------------

// The items of a list option, however given ("--ctx 4096,8192" or "--ctx 4096 --ctx 8192"): an
// empty item ("4096,,8192") is refused, not dropped, so that the table has the rows asked for.
std::vector<std::string> comma_items(const std::vector<std::string>& given, const char* flag) {
    std::vector<std::string> items;
    for (const std::string& text : given) {
        for (std::size_t start = 0;;) {
            const std::size_t end = std::min(text.find(',', start), text.size());
            if (end == start) {
                throw UsageError(std::string("gallocsim predict: ") + flag + " \"" + text + "\" has an empty item");
            }
            items.push_back(text.substr(start, end - start));
            if (end == text.size()) {
                break;
            }
            start = end + 1;
        }
    }
    return items;
}

std::vector<std::size_t> positive_list(const std::vector<std::string>& given, const char* flag, bool zero_allowed = false) {
    const std::vector<std::string> items = comma_items(given, flag);
    std::vector<std::size_t> values;
    for (const std::string& item : items) {
        std::size_t value = 0;
        std::size_t used = 0;
        try {
            value = std::stoul(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != item.size() || item.front() == '-' || (value == 0 && !zero_allowed)) {
            throw UsageError(std::string("gallocsim predict: ") + flag + " takes a comma list of " +
                             (zero_allowed ? "whole numbers" : "positive whole numbers") + "; \"" + item + "\" is not one");
        }
        values.push_back(value);
    }
    return values;
}

std::vector<PredictConfig> configurations(const PredictOptions& o) {
    const std::vector<std::string> flash_attn = comma_items(o.flash_attn, "--flash-attn");
    const std::vector<std::string> kv_types = comma_items(o.kv_type, "--kv-type");
    for (const std::string& fa : flash_attn) {
        if (fa != "on" && fa != "off" && fa != "auto") {
            throw UsageError("gallocsim predict: --flash-attn takes on, off or auto; \"" + fa + "\" is none of them");
        }
    }
    for (const std::string& kv : kv_types) {
        if (!kKvTypes.contains(kv)) {
            std::string known;
            for (const std::string& k : kKvTypes) {
                known += (known.empty() ? "" : ", ") + k;
            }
            throw UsageError("gallocsim predict: unknown --kv-type \"" + kv + "\" (llama.cpp's KV cache takes " + known + ")");
        }
    }
    const auto ctxs = positive_list(o.ctx, "--ctx"), ubatches = positive_list(o.ubatch, "--ubatch"),
               batches = positive_list(o.batch, "--batch"), layers = positive_list(o.n_gpu_layers, "--n-gpu-layers", true),
               sequences = positive_list(o.parallel, "--parallel");
    std::vector<PredictConfig> configs;
    for (const std::size_t l : layers)
        for (const std::string& kv : kv_types)
            for (const std::size_t p : sequences)
                for (const std::size_t b : batches)
                    for (const std::size_t u : ubatches)
                        for (const std::string& fa : flash_attn)
                            for (const std::size_t c : ctxs) {
                                configs.push_back({c, u, b, fa, kv, static_cast<int>(l), static_cast<int>(p), o.embedding});
                            }
    return configs;
}

// ---- layout -----------------------------------------------------------------------------

std::string mib(std::size_t bytes) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MiB";
    return s.str();
}

void print_table(const json& model, const std::vector<PredictRow>& rows, std::ostream& out) {
    // Names come from the GGUF and from llama.cpp: shown with control characters escaped.
    const auto answered = std::ranges::find_if(rows, [](const PredictRow& row) { return row.error.empty(); });
    out << visible_text(model.value("name", std::string())) << " (" << visible_text(model.value("architecture", std::string())) << ", "
        << model.value("tensors", 0) << " tensors): weights "
        << (answered != rows.end() ? binary_size(answered->llama.weights_bytes) + ", " : std::string())
        << "never read (a weightless copy)\n\n";
    out << std::right << std::setw(7) << "ctx" << std::setw(7) << "ubatch" << std::setw(6) << "batch" << "  "
        << std::left << std::setw(4) << "FA" << std::setw(6) << "KV" << std::right << std::setw(4) << "ngl"
        << std::setw(4) << "seq" << std::setw(13) << "compute" << std::setw(16) << "llama.cpp" << std::setw(13)
        << "KV cache" << std::setw(12) << "total" << "  " << std::left << std::setw(22) << "ggml over bound"
        << std::setw(34) << "over best plan" << std::right << std::setw(7) << "time" << "\n";
    for (const PredictRow& row : rows) {
        const PredictConfig& c = row.config;
        const std::string fa = c.flash_attn == "auto" ? row.llama.flash_attn + "*" : c.flash_attn;
        out << std::right << std::setw(7) << c.ctx << std::setw(7) << c.ubatch << std::setw(6) << c.batch << "  " << std::left
            << std::setw(4) << fa << std::setw(6) << c.kv_type << std::right << std::setw(4) << c.n_gpu_layers << std::setw(4)
            << c.parallel;
        if (!row.error.empty()) {
            out << "  refused: " << visible_text(row.error) << "\n";
            continue;
        }
        std::string logged;
        for (const PredictBuffer& b : row.buffers) {
            logged += (logged.empty() ? "" : "+") + (b.log_mib.empty() ? "-" : b.log_mib);
        }
        std::ostringstream seconds;
        seconds << std::fixed << std::setprecision(1) << row.seconds << " s";
        out << std::setw(13) << mib(row.compute_bytes()) << std::setw(16) << (logged + " MiB") << std::setw(13)
            << mib(row.llama.bytes_of("KV") + row.llama.bytes_of("RS")) << std::setw(12) << binary_size(row.total_bytes())
            << "  " << std::left << std::setw(22) << row.over_bound_text() << std::setw(34) << row.over_best_text()
            << std::right << std::setw(7) << seconds.str() << "\n";
    }
    std::vector<std::string> notes;  // one line per distinct version note: the rows share one program
    for (const PredictRow& row : rows) {
        if (!row.version_note.empty() && std::ranges::find(notes, row.version_note) == notes.end()) {
            notes.push_back(row.version_note);
            out << "note: " << visible_text(row.version_note) << "\n";
        }
    }
    out << "\ncompute: the compute buffers llama.cpp allocated, every buffer type (the capture's bytes); llama.cpp: "
           "its own log line, rounded; FA with *: auto, as llama.cpp resolved it; total: weights + KV cache + output + "
           "compute, as llama.cpp counts them; ggml over bound, over best plan: ggml's plans of every buffer type together "
           "against the in-place-aware bound and the best plan of the same blocks; time: the configuration's, llama.cpp's "
           "context and gallocsim's analysis\n";
}

void print_details(const std::vector<PredictRow>& rows, const std::string& policy, std::ostream& out) {
    for (const PredictRow& row : rows) {
        if (!row.error.empty()) {
            continue;
        }
        out << "\n" << row.config.text() << " (" << row.session << " call " << row.call << "):\n";
        for (const PredictBuffer& b : row.buffers) {
            out << "  " << b.buffer_type << " compute buffer: " << byte_count(b.bytes) << "; llama.cpp's log: "
                << (b.log_mib.empty() ? "no line" : b.log_mib + " MiB");
            if (b.extra > 0) {
                out << " (the buffer type adds " << counted(b.extra, "byte") << " to what was asked)";
            }
            if (b.replayed + b.extra != b.bytes) {
                out << "; gallocsim's replay: " << byte_count(b.replayed) << " (differs: run conform on the capture)";
            }
            out << "\n    " << visible_text(b.set_at) << "\n";
            if (!b.largest_live.empty()) {
                out << "    " << visible_text(b.largest_live) << "\n";
            }
            if (!b.bound_text.empty()) {
                out << "    " << visible_text(b.bound_text) << "\n";
            }
            if (b.policy_bytes) {
                out << "    with " << policy << ": " << byte_count(*b.policy_bytes)
                    << (*b.policy_bytes < b.bytes ? ", saves " + binary_size(b.bytes - *b.policy_bytes)
                        : *b.policy_bytes > b.bytes ? ", needs " + binary_size(*b.policy_bytes - b.bytes) + " more"
                                                   : ", the same")
                    << "\n";
            }
        }
        out << "  total " << binary_size(row.total_bytes()) << ": weights " << binary_size(row.llama.weights_bytes)
            << ", KV cache " << mib(row.llama.bytes_of("KV") + row.llama.bytes_of("RS")) << ", output "
            << mib(row.llama.bytes_of("output")) << ", compute " << binary_size(row.compute_bytes()) << "\n";
    }
}

json row_json(const PredictRow& row) {
    const PredictConfig& c = row.config;
    json buffers = json::array();
    for (const PredictBuffer& b : row.buffers) {
        buffers.push_back({{"buffer_type", b.buffer_type}, {"bytes", b.bytes}, {"replayed_bytes", b.replayed}, {"extra_bytes", b.extra},
                           {"llama_log_mib", b.log_mib}, {"set_at", b.set_at}, {"largest_live", b.largest_live},
                           {"lower_bound", b.lower_bound}, {"best_plan", b.best_plan}, {"best_planner", b.best_planner},
                           {"best_plan_optimal", b.optimal}, {"bound_text", b.bound_text},
                           {"policy_bytes", b.policy_bytes ? json(*b.policy_bytes) : json()}});
    }
    return {{"ctx", c.ctx}, {"ubatch", c.ubatch}, {"batch", c.batch}, {"flash_attn", c.flash_attn},
            {"flash_attn_resolved", row.llama.flash_attn}, {"kv_type", c.kv_type}, {"n_gpu_layers", c.n_gpu_layers},
            {"parallel", c.parallel}, {"n_ctx", row.llama.n_ctx}, {"n_seq_max", row.llama.n_seq_max}, {"embedding", c.embedding}, {"error", row.error}, {"session", row.session},
            {"call", row.call}, {"compute_bytes", row.compute_bytes()}, {"buffers", buffers},
            {"weights_bytes", row.llama.weights_bytes}, {"kv_bytes", row.llama.bytes_of("KV") + row.llama.bytes_of("RS")},
            {"output_bytes", row.llama.bytes_of("output")}, {"total_bytes", row.total_bytes()},
            {"seconds", row.seconds}, {"llama_seconds", row.llama.seconds}};
}

// Buffer over context, one line per setting other than the context (ubatch, flash attention, ...).
std::string svg_chart(const std::vector<PredictRow>& rows) {
    std::map<std::string, std::vector<std::pair<std::size_t, std::size_t>>> lines;
    std::size_t top = 1, least_ctx = 0, most_ctx = 0;
    for (const PredictRow& row : rows) {
        if (!row.error.empty()) {
            continue;
        }
        const PredictConfig& c = row.config;
        std::string name = "ubatch " + std::to_string(c.ubatch) + ", FA " +
                           (c.flash_attn == "auto" ? row.llama.flash_attn + " (auto)" : c.flash_attn);
        if (c.kv_type != "f16") name += ", KV " + c.kv_type;
        if (c.batch != 2048) name += ", batch " + std::to_string(c.batch);
        if (c.parallel != 1) name += ", " + std::to_string(c.parallel) + " seq";
        lines[name].emplace_back(c.ctx, row.compute_bytes());
        top = std::max(top, row.compute_bytes());
        least_ctx = least_ctx == 0 ? c.ctx : std::min(least_ctx, c.ctx);
        most_ctx = std::max(most_ctx, c.ctx);
    }
    const double w = 640, h = 360, left = 80, bottom = 40, right = 200, upper = 20;
    const double lo = std::log2(static_cast<double>(std::max<std::size_t>(least_ctx, 1)));
    const double hi = std::max(lo + 1, std::log2(static_cast<double>(std::max<std::size_t>(most_ctx, 1))));
    const auto x = [&](std::size_t ctx) { return left + (std::log2(static_cast<double>(ctx)) - lo) / (hi - lo) * (w - left - right); };
    const auto y = [&](std::size_t bytes) { return h - bottom - static_cast<double>(bytes) / static_cast<double>(top) * (h - bottom - upper); };
    std::ostringstream s;
    s << std::fixed << std::setprecision(1);
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
    s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    s << "<text x=\"" << left << "\" y=\"14\">compute buffer over context (log scale)</text>\n";
    s << "<line x1=\"" << left << "\" y1=\"" << h - bottom << "\" x2=\"" << w - right << "\" y2=\"" << h - bottom << "\" stroke=\"black\"/>\n";
    s << "<line x1=\"" << left << "\" y1=\"" << upper << "\" x2=\"" << left << "\" y2=\"" << h - bottom << "\" stroke=\"black\"/>\n";
    s << "<text x=\"4\" y=\"" << y(top) + 4 << "\">" << binary_size(top) << "</text>\n<text x=\"4\" y=\"" << h - bottom << "\">0</text>\n";
    std::set<std::size_t> ticks;
    for (const auto& [name, points] : lines) {
        for (const auto& point : points) ticks.insert(point.first);
    }
    for (const std::size_t t : ticks) {
        s << "<text x=\"" << x(t) - 12 << "\" y=\"" << h - bottom + 16 << "\">" << t << "</text>\n";
    }
    const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"};
    std::size_t i = 0;
    for (auto& [name, points] : lines) {
        std::ranges::sort(points);
        const char* colour = colours[i % std::size(colours)];
        s << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
        for (const auto& [ctx, bytes] : points) s << x(ctx) << "," << y(bytes) << " ";
        s << "\"/>\n";
        s << "<text x=\"" << w - right + 8 << "\" y=\"" << upper + 16 + 16 * static_cast<double>(i) << "\" fill=\"" << colour
          << "\">" << name << "</text>\n";
        ++i;
    }
    s << "</svg>\n";
    return s.str();
}

// ---- the budget -------------------------------------------------------------------------

struct BudgetAnswer {
    PredictConfig config;  // its ctx: the largest that fits (0: none)
    bool reached_most = false;
    std::size_t most = 0;
    std::optional<PredictRow> best;    // the row at that context
    std::optional<PredictRow> misfit;  // the smallest context that did not fit
};

BudgetAnswer search_budget(Predictor& predictor, PredictConfig config, std::size_t budget, std::size_t start,
                           std::size_t most) {
    ContextSearch search(start, most, 256);
    BudgetAnswer answer{config, false, most, {}, {}};
    int tried = 0;
    while (const std::optional<std::size_t> ctx = search.next()) {
        config.ctx = *ctx;
        PredictRow row = predictor.run(config, false, "budget, try " + std::to_string(++tried) + ": ");
        if (!row.error.empty()) {
            throw UsageError("gallocsim predict: llama.cpp refused " + config.text() + ": " + row.error);
        }
        const bool fits = row.total_bytes() <= budget;
        search.record(*ctx, fits);
        if (fits && (!answer.best || answer.best->config.ctx < *ctx)) {
            answer.best = std::move(row);
        } else if (!fits && (!answer.misfit || answer.misfit->config.ctx > *ctx)) {
            answer.misfit = std::move(row);
        }
    }
    answer.config.ctx = search.best();
    answer.reached_most = search.reached_most();
    return answer;
}

void print_budget(const std::vector<BudgetAnswer>& answers, std::size_t budget, std::ostream& out) {
    out << "budget " << binary_size(budget) << " (" << budget << " bytes): the largest context whose weights, KV cache, "
        << "output and compute buffers fit, found with real reserves to a multiple of 256\n";
    for (const BudgetAnswer& a : answers) {
        PredictConfig c = a.config;
        out << "  ubatch " << c.ubatch << ", flash attention " << c.flash_attn << ", KV " << c.kv_type << ": ";
        if (!a.best) {
            out << "no context fits";
            if (a.misfit) {
                out << " (at " << a.misfit->config.ctx << " tokens: " << binary_size(a.misfit->total_bytes())
                    << ", of which the " << a.misfit->largest_part() << " " << "is the largest part)";
            }
            out << "\n";
            continue;
        }
        const PredictRow& row = *a.best;
        out << "ctx " << c.ctx << ": " << binary_size(row.total_bytes()) << " = weights " << binary_size(row.llama.weights_bytes)
            << " + KV cache " << mib(row.llama.bytes_of("KV") + row.llama.bytes_of("RS")) << " + output "
            << mib(row.llama.bytes_of("output")) << " + compute " << binary_size(row.compute_bytes()) << "; ";
        if (a.reached_most) {
            out << "the model's trained context (" << a.most << ") is reached before the budget\n";
        } else {
            out << "the " << row.largest_part() << " fill" << (row.largest_part() == "weights" ? "" : "s")
                << " most of it";
            if (a.misfit) {
                out << "; " << a.misfit->config.ctx << " tokens need " << binary_size(a.misfit->total_bytes());
            }
            out << "\n";
        }
    }
}

// ---- the command ------------------------------------------------------------------------

// The work folder: --out's (kept), else a temporary one (removed).
struct WorkFolder {
    fs::path path;
    bool keep = false;
    ~WorkFolder() {
        if (!keep && !path.empty()) {
            std::error_code error;
            fs::remove_all(path, error);
        }
    }
};

void check_model_file(const std::string& model) {
    std::error_code error;
    if (!fs::exists(model, error)) {
        throw UsageError("gallocsim predict: " + model + ": no such file");
    }
    if (!fs::is_regular_file(model, error)) {
        throw UsageError("gallocsim predict: " + model + ": not a file");
    }
}

std::optional<std::size_t> budget_of(const PredictOptions& options) {
    if (options.budget.empty()) {
        return std::nullopt;
    }
    const std::optional<std::size_t> budget = parse_byte_size(options.budget);
    if (!budget || *budget == 0) {
        throw UsageError("gallocsim predict: --budget takes a size such as 24GiB, 512MiB or 16GB; \"" + options.budget +
                         "\" is not one");
    }
    return budget;
}

// --out's folder, kept, else a new temporary one.
void make_work_folder(const PredictOptions& options, WorkFolder& work) {
    if (!options.out.empty()) {
        work.path = fs::absolute(options.out);
        work.keep = true;
        return;
    }
    char pattern[] = "/tmp/gallocsim-predict-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) {
        throw UsageError(std::string("gallocsim predict: cannot make a temporary folder: ") + std::strerror(errno));
    }
    work.path = pattern;
}

// The helper's first line: the model, or why it could not read it (its error, or its end).
json read_model(PredictHelper& helper, const fs::path& script) {
    const json first = helper.receive();
    if (!first.empty() && !first.is_discarded() && !first.contains("error")) {
        return first.value("model", json::object());
    }
    const int status = helper.finish();
    const std::string why = first.is_object() && first.contains("error")
                                ? first.value("error", std::string())
                                : "the helper " + script.string() + " ended (exit status " + std::to_string(status) +
                                      ") before reading the model; is it a Python with llama-cpp-python? "
                                      "(--python PATH or GALLOCSIM_PYTHON)";
    throw UsageError("gallocsim predict: " + why);
}

// --budget: one search per setting other than the context, from the first --ctx up to the
// model's trained context (131072 when its header has none).
json run_budget(const PredictOptions& options, const std::vector<PredictConfig>& configs, std::size_t budget,
                const json& model, Predictor& predictor, const Console& io) {
    const std::size_t most = model.value("trained_context", json()).is_number() ? model["trained_context"].get<std::size_t>()
                                                                               : std::size_t{131072};
    const std::size_t start = std::min(configs.front().ctx, most);
    std::set<std::tuple<std::size_t, std::size_t, std::string, std::string, int, int>> seen;
    std::vector<BudgetAnswer> answers;
    for (const PredictConfig& c : configs) {
        if (seen.insert({c.ubatch, c.batch, c.flash_attn, c.kv_type, c.n_gpu_layers, c.parallel}).second) {
            answers.push_back(search_budget(predictor, c, budget, start, most));
        }
    }
    json list = json::array();
    for (const BudgetAnswer& a : answers) {
        list.push_back({{"ubatch", a.config.ubatch}, {"flash_attn", a.config.flash_attn}, {"kv_type", a.config.kv_type},
                        {"largest_ctx", a.config.ctx}, {"trained_context_reached", a.reached_most},
                        {"at_largest", a.best ? row_json(*a.best) : json()},
                        {"first_misfit", a.misfit ? row_json(*a.misfit) : json()},
                        {"largest_part", a.best ? json(a.best->largest_part()) : json()}});
    }
    if (!options.json) {
        print_budget(answers, budget, io.out);
    }
    return {{"bytes", budget}, {"answers", list}};
}

// The table: every configuration in turn. Returns the rows' JSON; `all_refused` when llama.cpp
// refused every one.
json run_table(const PredictOptions& options, const std::vector<PredictConfig>& configs, const json& model,
               Predictor& predictor, const Console& io, bool& all_refused) {
    std::vector<PredictRow> rows;
    for (std::size_t i = 0; i < configs.size(); ++i) {
        rows.push_back(predictor.run(configs[i], true, "[" + std::to_string(i + 1) + "/" + std::to_string(configs.size()) + "] "));
    }
    json list = json::array();
    all_refused = true;
    for (const PredictRow& row : rows) {
        list.push_back(row_json(row));
        all_refused = all_refused && !row.error.empty();
    }
    if (!options.json) {
        print_table(model, rows, io.out);
        print_details(rows, options.policy, io.out);
    }
    if (all_refused) {
        io.err << "gallocsim predict: llama.cpp refused every configuration: " << visible_text(rows.front().error) << "\n";
    }
    if (!options.svg.empty() && write_text(svg_chart(rows), options.svg, io.out, io.err) != kDone) {
        throw UsageError("gallocsim predict: --svg " + options.svg + ": not written");
    }
    return list;
}

int predict(const PredictOptions& options, const Console& io) {
    return run_guarded(io.err, [&] {
        check_model_file(options.model);
        const std::vector<PredictConfig> configs = configurations(options);
        const std::optional<std::size_t> budget = budget_of(options);
        std::optional<Rules> policy;
        if (!options.policy.empty()) {
            policy = chosen_rules(options.policy, "--policy");
        }
        const fs::path script = predict_helper_script();
        WorkFolder work;
        make_work_folder(options, work);
        const fs::path capture = work.path / "capture";
        if (const std::string problem = live::prepare_capture_folder(capture); !problem.empty()) {
            throw UsageError("gallocsim predict: " + problem);
        }
        PredictHelper helper(python_to_run(options.python), script, fs::absolute(options.model), work.path, capture, options.verbose);
        json model = read_model(helper, script);
        if (!work.keep) {
            model["weightless"] = nullptr;  // it goes with the temporary folder
        }
        Predictor predictor(helper, capture, policy ? &policy->profile() : nullptr, io);
        json report{{"format", "gallocsim-predict/1"}, {"model", model}, {"capture", work.keep ? json(capture.string()) : json()}};
        bool all_refused = false;
        if (budget) {
            report["budget"] = run_budget(options, configs, *budget, model, predictor, io);
        } else {
            report["rows"] = run_table(options, configs, model, predictor, io, all_refused);
        }
        helper.finish();
        if (options.json) {
            io.out << report.dump(2) << "\n";
        }
        if (work.keep) {
            std::ofstream(work.path / "predict.json") << report.dump(2) << "\n";
            if (!options.json) {
                io.out << "\ncaptures kept in " << capture.string() << " (one session per configuration, in order): "
                       << "gallocsim why " << capture.string() << " --call N:CALL, conform, policy compare and the GUI open it\n";
            }
        }
        return static_cast<int>(all_refused ? kBadInput : kDone);
    });
}

} // namespace

// The subcommand on the command line (cli/command_list.hpp).
Subcommand add_predict_command(CLI::App& app, const Console& io) {
    auto o = std::make_shared<PredictOptions>();
    auto* command = app.add_subcommand("predict", "a GGUF's compute buffers at any context, as llama.cpp allocates them, "
                                                  "without its weights (docs/predict.md)");
    command->add_option("model", o->model, "the GGUF file (only its metadata and tensor infos are read)")->required();
    command->add_option("--ctx", o->ctx, "contexts in tokens, a comma list (default 4096)");
    command->add_option("--ubatch", o->ubatch, "micro-batches, a comma list (default 512)");
    command->add_option("--batch", o->batch, "logical batches, a comma list (default 2048, llama.cpp's)");
    command->add_option("--flash-attn", o->flash_attn, "on, off or auto, a comma list (default auto)");
    command->add_option("--kv-type", o->kv_type, "the KV cache's type, keys and values: f16, q8_0, q4_0, ... (default f16)");
    command->add_option("--n-gpu-layers", o->n_gpu_layers, "layers offloaded to a GPU backend, a comma list (default 0; "
                                                           "without a GPU backend llama.cpp runs them on the CPU)");
    command->add_option("--parallel", o->parallel, "sequences (n_seq_max), a comma list (default 1)");
    command->add_option("--budget", o->budget, "a memory budget (24GiB, 16GB): the largest context that fits, per setting");
    command->add_option("--policy", o->policy, "a policy file: what it would need for each configuration's graph");
    command->add_option("--out", o->out, "keep the weightless copy, the captures and predict.json in this folder");
    command->add_option("--python", o->python, "the Python with llama-cpp-python (default: $GALLOCSIM_PYTHON, else "
                                               "build/upstream/venv's, else python3)");
    command->add_option("--svg", o->svg, "write the compute buffer over context as SVG to this file");
    command->add_flag("--json", o->json, "one JSON object instead of the table");
    command->add_flag("--embedding", o->embedding, "an embedding context (pooled outputs, no logits), what encoders such as "
                                                    "BERT run, as llama-cpp-python makes it: a unified KV cache and, without "
                                                    "--parallel, as many sequences as a batch holds (up to 256)");
    command->add_flag("--verbose", o->verbose, "llama.cpp's own log on standard error");
    return {command, [o, &io] { return predict(*o, io); }};
}

} // namespace gallocsim::cli
