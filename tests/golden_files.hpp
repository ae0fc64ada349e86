#pragma once
// The golden corpus (../shared/golden) as test parameters: one test per file, named after it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

namespace gallocsim::testing {

inline std::filesystem::path golden_dir() {
    return std::filesystem::path(GALLOCSIM_SHARED_DIR) / "golden";
}

// Empty when the corpus is not there (the suites then have no instances).
inline std::vector<std::filesystem::path> golden_files() {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(golden_dir())) {
        for (const auto& entry : std::filesystem::directory_iterator(golden_dir())) {
            if (entry.path().extension() == ".json") {
                files.push_back(entry.path());
            }
        }
    }
    std::ranges::sort(files);
    return files;
}

inline std::string golden_test_name(const ::testing::TestParamInfo<std::filesystem::path>& info) {
    std::string name = info.param.stem().string();
    std::ranges::replace_if(name, [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
}

} // namespace gallocsim::testing
