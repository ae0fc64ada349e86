#include "simulator/capture_command.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <ostream>
#include <set>
#include <system_error>

extern char** environ;

namespace gallocsim::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLibrary = "libgallocsim_capture.so";

// Next to the executable (build tree), or in ../lib (install tree).
std::vector<fs::path> library_candidates() {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    if (error) {
        return {};
    }
    return {exe.parent_path() / kLibrary, (exe.parent_path() / ".." / "lib" / kLibrary).lexically_normal()};
}

bool is_session_file(const fs::path& path) {
    const std::string name = path.filename().string();
    return name.starts_with("session-") && name.ends_with(".jsonl");
}

// The folder exists afterwards, holds no earlier capture, and takes a new file.
std::string prepare_folder(const fs::path& dir) {
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) {
        return "cannot create " + dir.string() + ": " + error.message();
    }
    for (const auto& entry : fs::directory_iterator(dir, error)) {
        if (is_session_file(entry.path())) {
            return dir.string() + " already holds a capture (" + entry.path().filename().string() +
                   "); choose an empty or new folder";
        }
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

// The environment with the library prepended to LD_PRELOAD and the folder named.
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

void print_summary(const CaptureSummary& summary, const fs::path& dir, std::ostream& out) {
    out << "captured " << summary.sessions.size() << (summary.sessions.size() == 1 ? " allocator" : " allocators")
        << " into " << dir.string() << ":";
    for (const std::string& session : summary.sessions) {
        out << " " << session;
    }
    out << "\ncalls:";
    const char* separator = " ";
    for (const auto& [function, count] : summary.calls) {
        out << separator << count << " " << function;
        if (function == "ggml_gallocr_alloc_graph") {
            out << " (" << summary.replanned << " re-planned)";
        }
        separator = ", ";
    }
    if (summary.calls.empty()) {
        out << " none";
    }
    out << "\ngraphs: " << summary.graphs << " distinct";
    if (summary.graphs > 0) {
        out << ", " << (summary.min_nodes == summary.max_nodes ? "" : std::to_string(summary.min_nodes) + " to ")
            << summary.max_nodes << (summary.max_nodes == 1 ? " node" : " nodes");
    }
    out << "\nlargest buffer: " << summary.largest_buffer << " bytes";
    if (!summary.largest_buffer_where.empty()) {
        out << " (" << summary.largest_buffer_where << ")";
    }
    out << "\n";
    if (summary.unreadable_lines > 0) {
        out << summary.unreadable_lines << " unreadable line(s): the program stopped while writing\n";
    }
}

} // namespace

// Kept small and in one place: the sessions' full reader (for replay) lives elsewhere.
CaptureSummary summarize_capture(const fs::path& dir) {
    CaptureSummary summary;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
        if (is_session_file(entry.path())) {
            summary.sessions.push_back(entry.path().filename().string());
        }
    }
    // session-2 before session-10
    std::ranges::sort(summary.sessions, {}, [](const std::string& name) { return std::atoi(name.c_str() + 8); });
    std::set<std::string> graphs;
    for (const std::string& session : summary.sessions) {
        std::ifstream in(dir / session);
        std::vector<std::string> buffer_names;
        bool header = true;
        for (std::string text; std::getline(in, text);) {
            const auto line = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
            if (!line.is_object()) {
                ++summary.unreadable_lines;
                continue;
            }
            if (header) {
                header = false;
                for (const auto& name : line.value("buffers", nlohmann::json::array())) {
                    buffer_names.push_back(name.is_string() ? name.get<std::string>() : "?");
                }
                continue;
            }
            const std::string function = line.value("function", "?");
            ++summary.calls[function];
            summary.replanned += line.value("replanned", false) ? 1 : 0;
            const auto nodes = line.value("nodes", std::size_t{0});
            if (graphs.insert(line.value("graph", "")).second) {
                summary.min_nodes = graphs.size() == 1 ? nodes : std::min(summary.min_nodes, nodes);
                summary.max_nodes = std::max(summary.max_nodes, nodes);
            }
            const auto sizes = line.value("buffer_sizes", std::vector<std::size_t>{});
            for (std::size_t id = 0; id < sizes.size(); ++id) {
                if (sizes[id] > summary.largest_buffer) {
                    summary.largest_buffer = sizes[id];
                    summary.largest_buffer_where = (id < buffer_names.size() ? buffer_names[id] : "?") + ", " +
                                                   session + " call " + std::to_string(line.value("call", 0));
                }
            }
        }
    }
    summary.graphs = graphs.size();
    return summary;
}

int capture(const CaptureOptions& options, std::ostream& out, std::ostream& err) {
    const auto candidates = library_candidates();
    auto library = std::ranges::find_if(candidates, [](const fs::path& p) { return fs::exists(p); });
    if (library == candidates.end()) {
        err << "gallocsim capture: " << kLibrary << " not found";
        for (const fs::path& candidate : candidates) {
            err << (candidate == candidates.front() ? " at " : " or ") << candidate.string();
        }
        err << " (it is built when CMake finds a ggml tree: GALLOCSIM_GGML_DIR)\n";
        return 2;
    }
    const fs::path dir = fs::absolute(options.out);
    if (const std::string problem = prepare_folder(dir); !problem.empty()) {
        err << "gallocsim capture: " << problem << "\n";
        return 2;
    }
    std::vector<std::string> args = options.command;
    std::vector<std::string> env = capture_environment(fs::absolute(*library), dir);
    auto argv = c_strings(args);
    auto envp = c_strings(env);
    pid_t pid = 0;
    if (const int spawn_error = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data()); spawn_error != 0) {
        err << "gallocsim capture: cannot run " << args.front() << ": " << std::strerror(spawn_error) << "\n";
        return 127;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            err << "gallocsim capture: lost the program: " << std::strerror(errno) << "\n";
            return 2;
        }
    }
    const int exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);

    const CaptureSummary summary = summarize_capture(dir);
    if (summary.sessions.empty()) {
        out << args.front() << " never called ggml's graph allocator (ggml_gallocr_new or ggml_gallocr_new_n): "
            << "nothing captured. A program with ggml linked statically, or built with -Bsymbolic, cannot be "
               "captured (docs/your-own-program.md).\n";
    } else {
        print_summary(summary, dir, out);
    }
    out << args.front() << (WIFSIGNALED(status) ? " was killed by signal " + std::to_string(WTERMSIG(status))
                                                 : " exited with " + std::to_string(exit_code))
        << "\n";
    return exit_code;
}

} // namespace gallocsim::cli
