#include "simulator/cli/capture_run.hpp"

#include "simulator/model/capture_session.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <system_error>

extern char** environ;

namespace gallocsim::cli {

namespace fs = std::filesystem;

std::vector<fs::path> capture_library_candidates() {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    if (error) {
        return {};
    }
    return {exe.parent_path() / kCaptureLibrary, (exe.parent_path() / ".." / "lib" / kCaptureLibrary).lexically_normal()};
}

std::optional<fs::path> find_capture_library() {
    for (const fs::path& candidate : capture_library_candidates()) {
        if (fs::exists(candidate)) {
            return fs::absolute(candidate);
        }
    }
    return std::nullopt;
}

std::string capture_library_missing() {
    std::string text = std::string(kCaptureLibrary) + " not found";
    const auto candidates = capture_library_candidates();
    for (const fs::path& candidate : candidates) {
        text += (candidate == candidates.front() ? " at " : " or ") + candidate.string();
    }
    return text + " (it is built when CMake finds a ggml tree: GALLOCSIM_GGML_DIR)";
}

std::string prepare_capture_folder(const fs::path& dir) {
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) {
        return "cannot create " + dir.string() + ": " + error.message();
    }
    if (is_capture_dir(dir)) {
        return dir.string() + " already holds a capture; choose an empty or new folder";
    }
    const fs::path probe = dir / ".gallocsim-write-test";
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return "cannot write to " + dir.string() + ": " + std::strerror(errno);
    }
    ::close(fd);
    fs::remove(probe, error);
    return {};
}

std::vector<std::string> capture_environment(const fs::path& library, const fs::path& dir) {
    std::vector<std::string> env;
    std::string preload = library.string();
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string_view variable(*entry);
        if (variable.starts_with("LD_PRELOAD=")) {
            if (variable.size() > 11) {
                preload += ":" + std::string(variable.substr(11));
            }
        } else if (!variable.starts_with("GALLOCSIM_CAPTURE_DIR=")) {
            env.emplace_back(variable);
        }
    }
    env.push_back("LD_PRELOAD=" + preload);
    env.push_back("GALLOCSIM_CAPTURE_DIR=" + dir.string());
    return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    for (std::string& s : strings) {
        pointers.push_back(s.data());
    }
    pointers.push_back(nullptr);
    return pointers;
}

} // namespace gallocsim::cli
