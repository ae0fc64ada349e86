#pragma once
// The golden corpus (../shared/golden, test_support::golden_dir()) for tests that check
// every file.
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace gallocsim::test_support {

// Empty when the corpus is not there (the suites then have no instances).
inline std::vector<std::filesystem::path> golden_files() {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    if (std::filesystem::is_directory(golden_dir(), ec)) {
        for (const auto& entry : std::filesystem::directory_iterator(golden_dir())) {
            if (entry.path().extension() == ".json") {
                files.push_back(entry.path());
            }
        }
    }
    std::ranges::sort(files);
    return files;
}

// Calls check(path) for every golden file whose name starts with `prefix`, with failures
// traced to the file; skips the test when the corpus is not there. One test for all files
// keeps the suite to one process (ctest runs each test in its own).
template <typename Check>
void for_each_golden_file(std::string_view prefix, Check&& check) {
    const auto files = golden_files();
    if (files.empty()) {
        GTEST_SKIP() << golden_dir() << " not found";
    }
    for (const auto& path : files) {
        if (path.filename().string().starts_with(prefix)) {
            SCOPED_TRACE(path.filename().string());
            check(path);
        }
    }
}

} // namespace gallocsim::test_support
