#pragma once
// Failing property cases are written as graph files, so that the smallest counterexample
// rapidcheck shrinks to can be replayed with `gallocsim plan FILE`.

#include <rapidcheck.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace gallocsim::fuzz {

// $GALLOCSIM_FUZZ_OUT if set, else the build's fuzz/counterexamples folder.
std::filesystem::path counterexample_dir();

// Writes `json` to <dir>/<name>.json and returns the path (empty if it could not be written).
std::filesystem::path save_counterexample(std::string_view name, const std::string& json);

// Runs `body`; when it fails (a failed RC_ASSERT or any other exception) `json` is saved
// as `name` first. While rapidcheck shrinks, each smaller failing case overwrites the
// file, so what is left is the counterexample it reports.
template <typename Body>
void keeping_counterexample(std::string_view name, const std::string& json, Body&& body) {
    RC_LOG() << "if this case fails, its graph is saved as " << (counterexample_dir() / (std::string(name) + ".json")).string()
             << "\n";
    try {
        body();
    } catch (const rc::detail::CaseResult& result) {
        if (result.type == rc::detail::CaseResult::Type::Failure) {
            save_counterexample(name, json);
        }
        throw;
    } catch (...) {
        save_counterexample(name, json);
        throw;
    }
}

} // namespace gallocsim::fuzz
