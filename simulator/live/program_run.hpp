#pragma once
// A ggml program run under libgallocsim_capture.so: the library found, the capture folder
// made ready, the program started with the library preloaded (and, when watched, the live
// socket named), and its end. `gallocsim capture`, `gallocsim watch` and the GUI's Run a
// program all start programs here.

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim::live {

// Where the capture library is looked for: next to the running executable (the build
// tree's simulator/), beside it in ../simulator (the GUI's build folder), or in ../lib (an
// installed tree).
std::vector<std::filesystem::path> capture_library_candidates();
// The first candidate that exists; otherwise the one sentence that says where it was looked for.
struct FoundLibrary {
    std::optional<std::filesystem::path> path;
    std::string problem;
};
FoundLibrary find_capture_library();

// Makes `dir` ready for a capture: it exists afterwards, holds no earlier capture and takes
// a new file. Returns the problem in one sentence, or an empty string.
std::string prepare_capture_folder(const std::filesystem::path& dir);

// This process's environment with the library prepended to LD_PRELOAD, the capture folder in
// GALLOCSIM_CAPTURE_DIR and, when given, the watcher's socket in GALLOCSIM_LIVE (a watcher's
// own variables never leak through). For a caller that starts the program itself.
std::vector<std::string> capture_environment(const std::filesystem::path& library, const std::filesystem::path& dir,
                                             const std::optional<std::filesystem::path>& live_socket);
// argv/envp for posix_spawn: pointers into `strings`, ending in nullptr.
std::vector<char*> c_strings(std::vector<std::string>& strings);

// How a program ended: its exit code, or the signal that ended it.
struct ProgramEnd {
    int exit_code = 0;   // 128 + n when signal n ended it
    int signal = 0;      // 0: it exited
    std::string words() const;  // "exited with 0", "was killed by signal 9"
};

class ProgramRun {
public:
    // Starts `command` with the library prepended to LD_PRELOAD, the capture folder in
    // GALLOCSIM_CAPTURE_DIR and, when given, the watcher's socket in GALLOCSIM_LIVE. Throws
    // std::runtime_error ("cannot run PROGRAM: reason") when it cannot be started.
    ProgramRun(const std::vector<std::string>& command, const std::filesystem::path& library,
               const std::filesystem::path& capture_dir, const std::optional<std::filesystem::path>& live_socket);
    ProgramRun(const ProgramRun&) = delete;
    ProgramRun& operator=(const ProgramRun&) = delete;
    // A program still running when this goes is left to run (it is not ours to kill) and
    // reaped by no one but init.
    ~ProgramRun() = default;

    pid_t pid() const { return pid_; }
    // The end once the program has ended; `wait`: blocks until it does.
    std::optional<ProgramEnd> poll(bool wait);

private:
    pid_t pid_ = 0;
    std::optional<ProgramEnd> end_;
};

} // namespace gallocsim::live
