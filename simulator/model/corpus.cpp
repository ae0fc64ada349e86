#include "simulator/model/corpus.hpp"

#include "simulator/model/capture_session.hpp"

#include <algorithm>
#include <set>
#include <system_error>

namespace gallocsim {
namespace fs = std::filesystem;

CorpusInputs find_corpus_inputs(std::span<const std::string> paths) {
    CorpusInputs inputs;
    for (const std::string& path : paths) {
        std::error_code ec;
        if (is_capture_dir(path)) {
            inputs.captures.emplace_back(path);
        } else if (fs::is_directory(path, ec)) {
            std::vector<fs::path> found;
            std::vector<fs::path> captures;
            for (auto it = fs::recursive_directory_iterator(path, ec); it != fs::recursive_directory_iterator(); ++it) {
                if (it->is_directory() && is_capture_dir(it->path())) {
                    captures.push_back(it->path());
                    it.disable_recursion_pending();
                } else if (it->is_regular_file() && it->path().extension() == ".json") {
                    found.push_back(it->path());
                }
            }
            if (found.empty() && captures.empty()) {
                inputs.problems.push_back(path + ": a folder with no graph files (*.json) and no capture folders in it");
            }
            std::ranges::sort(found);
            std::ranges::sort(captures);
            inputs.files.insert(inputs.files.end(), found.begin(), found.end());
            inputs.captures.insert(inputs.captures.end(), captures.begin(), captures.end());
        } else if (const auto folder = capture_holding(path)) {
            inputs.problems.push_back(path + ": part of the capture in " + folder->string() + "; give the capture folder");
        } else if (fs::exists(path, ec)) {
            inputs.files.emplace_back(path);
        } else {
            inputs.problems.push_back(path + ": no such file or folder");
        }
    }
    return inputs;
}

std::vector<CorpusGraph> capture_graphs(const fs::path& folder) {
    const Capture capture = load_capture(folder);
    if (!capture.errors.empty()) {
        throw GraphFileError(capture.errors.front());
    }
    std::vector<CorpusGraph> graphs;
    std::set<std::string> seen;
    for (const CaptureSession& session : capture.sessions) {
        for (const CapturedCall& call : session.calls) {
            if (!seen.insert(call.graph).second) {
                continue;
            }
            // "llama-3.1-8b-c4096-u512 call 1": the capture and the call that planned the graph
            // first (the session too where the capture has several).
            std::string label = folder.filename().string();
            if (label.empty()) {
                label = folder.parent_path().filename().string();
            }
            label += (capture.sessions.size() > 1 ? " " + session.file.stem().string() : std::string()) + " call " +
                     std::to_string(call.number);
            graphs.push_back({label, load_call_graph(session, call), folder / call.graph});
        }
    }
    return graphs;
}

} // namespace gallocsim
