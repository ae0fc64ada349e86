#include "fuzz/counterexample.hpp"

#include <cstdlib>
#include <fstream>
#include <system_error>

namespace gallocsim::fuzz {

std::filesystem::path counterexample_dir() {
    if (const char* dir = std::getenv("GALLOCSIM_FUZZ_OUT"); dir != nullptr && *dir != '\0') {
        return dir;
    }
    return GALLOCSIM_FUZZ_OUT_DEFAULT;
}

std::filesystem::path save_counterexample(std::string_view name, const std::string& json) {
    const std::filesystem::path dir = counterexample_dir();
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    const std::filesystem::path path = dir / (std::string(name) + ".json");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << json << "\n";
    return out ? path : std::filesystem::path{};
}

} // namespace gallocsim::fuzz
