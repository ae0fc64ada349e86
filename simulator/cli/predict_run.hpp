#pragma once
// What `gallocsim predict` runs: the helper simulator/predict/predict_reserve.py, with a Python that
// has llama-cpp-python, under the capture library, talked to a JSON line each way; and one
// configuration asked of it and read back from its capture session (analysis/predict_report).

#include "simulator/analysis/predict_report.hpp"
#include "simulator/cli/command_line.hpp"

#include <nlohmann/json.hpp>
#include <sys/types.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace gallocsim::cli {

// The helper next to the executable (build tree) or in ../share/gallocsim (install tree); throws
// UsageError naming both places when it is in neither.
std::filesystem::path predict_helper_script();

// `asked` (--python) when given, else $GALLOCSIM_PYTHON, else the venv the build was told
// (GALLOCSIM_PREDICT_PYTHON), else python3.
std::string python_to_run(const std::string& asked);

// The helper, running under the capture library, with a pipe each way. Throws UsageError when
// the capture library or the Python cannot be found.
class PredictHelper {
public:
    PredictHelper(const std::string& python, const std::filesystem::path& script, const std::filesystem::path& model,
                  const std::filesystem::path& work, const std::filesystem::path& capture, bool verbose);
    PredictHelper(const PredictHelper&) = delete;
    PredictHelper& operator=(const PredictHelper&) = delete;
    ~PredictHelper() { finish(); }

    // The helper's next JSON line; an empty object when it ended, a discarded value when the line is not JSON.
    nlohmann::json receive();
    void send(const PredictConfig& config);
    // Closes its input and waits for it: its exit status (128 + n for signal n).
    int finish();

private:
    pid_t pid_ = 0;
    int status_ = 0;
    std::FILE* to_ = nullptr;
    std::FILE* from_ = nullptr;
};

// One configuration asked of llama.cpp and read back from the capture: the configurations
// asked in turn are the capture's sessions in turn (each context is one graph allocator).
class Predictor {
public:
    Predictor(PredictHelper& helper, std::filesystem::path capture, const AllocatorProfile* policy, const Console& io)
        : helper_(helper), capture_(std::move(capture)), policy_(policy), io_(io) {}

    // `explain`: plan the graph for what sets each buffer and the bounds (the table); else the
    // sizes only (the budget's search). A progress line on a terminal, finished with the time.
    PredictRow run(const PredictConfig& config, bool explain, const std::string& progress);

private:
    PredictRow read_session(const PredictConfig& config, const LlamaAnswer& llama, bool explain);

    PredictHelper& helper_;
    std::filesystem::path capture_;
    const AllocatorProfile* policy_;
    const Console& io_;
    int sessions_ = 0;
};

} // namespace gallocsim::cli
