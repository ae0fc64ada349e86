#include "simulator/cli/predict_run.hpp"

#include "simulator/live/program_run.hpp"
#include "simulator/cli/errors.hpp"
#include "simulator/model/amount_text.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <ostream>

namespace gallocsim::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr const char* kHelper = "predict_reserve.py";
} // namespace

fs::path predict_helper_script() {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    const std::vector<fs::path> candidates{exe.parent_path() / kHelper,
                                           (exe.parent_path() / ".." / "share" / "gallocsim" / kHelper).lexically_normal()};
    for (const fs::path& candidate : candidates) {
        if (fs::exists(candidate)) {
            return candidate;
        }
    }
    throw UsageError(std::string("gallocsim predict: its helper ") + kHelper + " is not at " + candidates[0].string() +
                     " or " + candidates[1].string() + " (the build copies it next to gallocsim)");
}

// --python, else $GALLOCSIM_PYTHON, else the venv the build found (build/upstream/venv), else python3.
std::string python_to_run(const std::string& asked) {
    if (!asked.empty()) {
        return asked;
    }
    if (const char* env = std::getenv("GALLOCSIM_PYTHON"); env != nullptr && env[0] != '\0') {
        return env;
    }
#ifdef GALLOCSIM_DEFAULT_PYTHON
    if (fs::exists(GALLOCSIM_DEFAULT_PYTHON)) {
        return GALLOCSIM_DEFAULT_PYTHON;
    }
#endif
    return "python3";
}

PredictHelper::PredictHelper(const std::string& python, const fs::path& script, const fs::path& model, const fs::path& work,
                             const fs::path& capture, bool verbose) {
    const live::FoundLibrary library = live::find_capture_library();
    if (!library.path) {
        throw UsageError("gallocsim predict: " + library.problem);
    }
    int to_child[2], from_child[2];
    if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) {
        throw UsageError(std::string("gallocsim predict: cannot make a pipe: ") + std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    for (const int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) {
        posix_spawn_file_actions_addclose(&actions, fd);
    }
    std::vector<std::string> args{python, script.string(), model.string(), work.string()};
    if (verbose) {
        args.emplace_back("--verbose");
    }
    std::vector<std::string> env = live::capture_environment(*library.path, capture, std::nullopt);
    // llama.cpp clears its KV cache when it makes it: gigabytes of page faults at long contexts
    // (an 8B model's f16 cache is 8 GiB at 64k tokens). Transparent huge pages for malloc's
    // mappings make that a 512th of the faults (glibc 2.35 and later; older ones ignore it).
    if (std::getenv("GLIBC_TUNABLES") == nullptr) {
        env.emplace_back("GLIBC_TUNABLES=glibc.malloc.hugetlb=1");
    }
    auto argv = live::c_strings(args);
    auto envp = live::c_strings(env);
    const int spawned = posix_spawnp(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    if (spawned != 0) {
        ::close(to_child[1]);
        ::close(from_child[0]);
        throw UsageError("gallocsim predict: cannot run the Python " + python + ": " + std::strerror(spawned) +
                         " (give one with llama-cpp-python: --python PATH or GALLOCSIM_PYTHON)");
    }
    to_ = ::fdopen(to_child[1], "w");
    from_ = ::fdopen(from_child[0], "r");
}

json PredictHelper::receive() {
    std::string line;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, from_) != nullptr) {
        line += buffer;
        if (!line.empty() && line.back() == '\n') {
            break;
        }
    }
    if (line.empty()) {
        return json::object();
    }
    return json::parse(line, nullptr, false);
}

void PredictHelper::send(const PredictConfig& c) {
    const json request{{"ctx", c.ctx},         {"ubatch", c.ubatch},       {"batch", c.batch},
                       {"flash_attn", c.flash_attn}, {"kv_type", c.kv_type}, {"n_gpu_layers", c.n_gpu_layers},
                       {"parallel", c.parallel},   {"embedding", c.embedding}};
    std::fputs((request.dump() + "\n").c_str(), to_);
    std::fflush(to_);
}

int PredictHelper::finish() {
    if (to_ != nullptr) {
        std::fclose(to_);
        to_ = nullptr;
    }
    if (from_ != nullptr) {
        std::fclose(from_);
        from_ = nullptr;
    }
    if (pid_ <= 0) {
        return status_;
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = 0;
    status_ = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    return status_;
}

namespace {

LlamaAnswer llama_answer(const json& reply) {
    LlamaAnswer answer;
    answer.error = reply.value("error", std::string());
    answer.n_ctx = reply.value("n_ctx", std::size_t{0});
    answer.n_seq_max = reply.value("n_seq_max", std::size_t{0});
    answer.weights_bytes = reply.value("weights_bytes", std::size_t{0});
    answer.flash_attn = reply.value("flash_attn", std::string());
    answer.seconds = reply.value("seconds", 0.0);
    for (const json& size : reply.value("sizes", json::array())) {
        answer.sizes.push_back({size.value("buffer_type", ""), size.value("kind", ""), size.value("mib", "")});
    }
    return answer;
}

} // namespace

PredictRow Predictor::run(const PredictConfig& config, bool explain, const std::string& progress) {
    if (io_.err_is_terminal) {
        io_.err << "predict: " << progress << config.text() << " ..." << std::flush;
    }
    const auto started = std::chrono::steady_clock::now();
    helper_.send(config);
    const json reply = helper_.receive();
    if (reply.empty() || reply.is_discarded()) {
        if (io_.err_is_terminal) {
            io_.err << "\n";  // ends the progress line before the error
        }
        const int status = helper_.finish();
        throw UsageError("gallocsim predict: the helper ended without an answer for " + config.text() +
                         " (exit status " + std::to_string(status) + "; --verbose shows llama.cpp's log)");
    }
    const LlamaAnswer llama = llama_answer(reply);
    if (reply.value("kind", std::string()) == "model") {
        throw UsageError("gallocsim predict: " + llama.error);  // no configuration can run: llama.cpp refused the model
    }
    PredictRow row{config, llama, {}, 0, {}, llama.error, 0, {}};
    if (llama.error.empty()) {
        row = read_session(config, llama, explain);
    }
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    // The progress line finished: no carriage return or escape, which the command line's output shows
    // as text (cli/visible_output.hpp), so one line per configuration, begun above and ended here.
    if (io_.err_is_terminal) {
        io_.err << " " << (row.error.empty() ? binary_size(row.compute_bytes()) : "refused") << ", " << std::fixed
                << std::setprecision(1) << row.seconds << " s\n" << std::defaultfloat;
    }
    return row;
}

PredictRow Predictor::read_session(const PredictConfig& config, const LlamaAnswer& llama, bool explain) {
    const Capture capture = load_capture(capture_);
    const std::string expected = "session-" + std::to_string(sessions_) + ".jsonl";
    ++sessions_;
    for (const CaptureSession& session : capture.sessions) {
        if (session.label() == expected) {
            if (!explain) {
                ExactLimits none;
                none.node_limit = 1;
                return predict_row(session, config, llama, nullptr, none);
            }
            return predict_row(session, config, llama, policy_, ExactLimits{});
        }
    }
    throw UsageError("gallocsim predict: " + capture_.string() + " holds no " + expected + " for " + config.text() +
                     ": llama.cpp's context made no graph allocator the capture saw");
}

} // namespace gallocsim::cli
