#pragma once
// Shared by the libFuzzer harnesses: a finding is reported by printing what is wrong and
// aborting, which libFuzzer records as a crash and saves the input for.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim::fuzz {

[[noreturn]] inline void finding(std::string_view what) {
    std::fprintf(stderr, "gallocsim fuzz finding: %.*s\n", static_cast<int>(what.size()), what.data());
    std::abort();
}

inline void require(bool ok, std::string_view what) {
    if (!ok) {
        finding(what);
    }
}

inline void require_none(const std::vector<std::string>& problems, std::string_view what) {
    if (!problems.empty()) {
        std::string text(what);
        for (const auto& p : problems) {
            text += "\n  " + p;
        }
        finding(text);
    }
}

} // namespace gallocsim::fuzz
