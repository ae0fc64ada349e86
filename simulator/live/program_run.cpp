#include "simulator/live/program_run.hpp"

#include "simulator/model/capture_session.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <system_error>

extern char** environ;

namespace gallocsim::live {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLibrary = "libgallocsim_capture.so";

} // namespace

std::vector<std::string> capture_environment(const fs::path& library, const fs::path& dir,
                                             const std::optional<fs::path>& live_socket) {
    std::vector<std::string> env;
    std::string preload = library.string();
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string_view variable(*entry);
        if (variable.starts_with("LD_PRELOAD=")) {
            if (variable.size() > 11) {
                preload += ":" + std::string(variable.substr(11));
            }
        } else if (!variable.starts_with("GALLOCSIM_CAPTURE_DIR=") && !variable.starts_with("GALLOCSIM_LIVE=")) {
            env.emplace_back(variable);
        }
    }
    env.push_back("LD_PRELOAD=" + preload);
    env.push_back("GALLOCSIM_CAPTURE_DIR=" + dir.string());
    if (live_socket) {
        env.push_back("GALLOCSIM_LIVE=" + live_socket->string());
    }
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

std::vector<fs::path> capture_library_candidates() {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    if (error) {
        return {};
    }
    const fs::path here = exe.parent_path();
    std::vector<fs::path> candidates;
    // Beside the executable (the build tree's simulator/, where `gallocsim` itself is), the
    // build tree's simulator/ from another folder of it, and an install's lib/.
    for (const fs::path& candidate : {here / kLibrary, (here / ".." / "simulator" / kLibrary).lexically_normal(),
                                      (here / ".." / "lib" / kLibrary).lexically_normal()}) {
        if (std::ranges::find(candidates, candidate) == candidates.end()) {
            candidates.push_back(candidate);  // in the build tree the first two are one folder
        }
    }
    return candidates;
}

FoundLibrary find_capture_library() {
    const auto candidates = capture_library_candidates();
    if (auto found = std::ranges::find_if(candidates, [](const fs::path& p) { return fs::exists(p); });
        found != candidates.end()) {
        return {fs::absolute(*found), {}};
    }
    std::string looked;
    for (const fs::path& candidate : candidates) {
        looked += (looked.empty() ? "" : ", ") + candidate.parent_path().string();
    }
    return {std::nullopt, std::string(kLibrary) + " was not built (looked in " + looked +
                              "): it is built against a ggml tree, which `bash .ci/install-upstream` unpacks; run that, "
                              "then `cmake --preset default && cmake --build --preset default` again (or set "
                              "GALLOCSIM_GGML_DIR to a ggml source tree)"};
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

std::string ProgramEnd::words() const {
    return signal != 0 ? "was killed by signal " + std::to_string(signal) : "exited with " + std::to_string(exit_code);
}

ProgramRun::ProgramRun(const std::vector<std::string>& command, const fs::path& library, const fs::path& capture_dir,
                       const std::optional<fs::path>& live_socket) {
    if (command.empty()) {
        throw std::runtime_error("no program to run");
    }
    std::vector<std::string> args = command;
    std::vector<std::string> env = capture_environment(library, capture_dir, live_socket);
    auto argv = c_strings(args);
    auto envp = c_strings(env);
    if (const int error = posix_spawnp(&pid_, argv[0], nullptr, nullptr, argv.data(), envp.data()); error != 0) {
        throw std::runtime_error("cannot run " + command.front() + ": " + std::strerror(error));
    }
}

std::optional<ProgramEnd> ProgramRun::poll(bool wait) {
    while (!end_) {
        int status = 0;
        const pid_t done = ::waitpid(pid_, &status, wait ? 0 : WNOHANG);
        if (done < 0 && errno == EINTR) {
            continue;
        }
        if (done < 0) {
            throw std::runtime_error(std::string("lost the program: ") + std::strerror(errno));
        }
        if (done == 0) {
            return std::nullopt;
        }
        end_ = WIFSIGNALED(status) ? ProgramEnd{128 + WTERMSIG(status), WTERMSIG(status)}
                                   : ProgramEnd{WEXITSTATUS(status), 0};
    }
    return end_;
}

} // namespace gallocsim::live
