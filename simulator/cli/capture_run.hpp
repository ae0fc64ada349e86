#pragma once
// What runs a program under the capture library, shared by `capture` and `predict`: where the
// library is, and the environment that preloads it and names the capture folder.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim::cli {

inline constexpr const char* kCaptureLibrary = "libgallocsim_capture.so";

// Where the library may be: next to the executable (build tree), or in ../lib (install tree).
std::vector<std::filesystem::path> capture_library_candidates();
// The first candidate that exists; none when it was not built.
std::optional<std::filesystem::path> find_capture_library();
// "libgallocsim_capture.so not found at A or B (it is built when CMake finds a ggml tree: GALLOCSIM_GGML_DIR)"
std::string capture_library_missing();
// This process's environment with the library prepended to LD_PRELOAD and the folder named.
std::vector<std::string> capture_environment(const std::filesystem::path& library, const std::filesystem::path& dir);
// The folder exists afterwards, holds no earlier capture, and takes a new file; else what is wrong.
std::string prepare_capture_folder(const std::filesystem::path& dir);
// argv/envp for posix_spawn: pointers into `strings`, ending in nullptr.
std::vector<char*> c_strings(std::vector<std::string>& strings);

} // namespace gallocsim::cli
