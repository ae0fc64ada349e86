// `gallocsim watch [--out DIR] -- PROGRAM [ARGS…]`: runs a program under the capture library
// and says, as the program makes each graph allocator call, what ggml did and whether
// gallocsim's own plan of the call reproduces it. The program's standard output and error
// are its own and pass through untouched; watch writes its lines to standard error, each
// beginning "[watch] " so that they can be told apart (and filtered out) when both go to a
// terminal or a log.
#include "simulator/analysis/watch_report.hpp"
#include "simulator/live/live_capture.hpp"
#include "simulator/live/live_server.hpp"
#include "simulator/live/program_run.hpp"

#include "simulator/cli/command_list.hpp"
#include "simulator/cli/errors.hpp"
#include "simulator/cli/graph_input.hpp"

#include <CLI/CLI.hpp>
#include <sys/resource.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace gallocsim::cli {

namespace fs = std::filesystem;

namespace {

struct WatchOptions {
    std::string out;                   // the capture folder (default: a new one named by the time)
    std::string ggml_version;          // replay every session under this version
    std::vector<std::string> command;  // the program and its arguments
};

constexpr const char* kPrefix = "[watch] ";
constexpr int kWatcherNiceness = 10;

// ./gallocsim-watch-20261128-091500, or -2, -3, ... when that is taken.
fs::path default_folder() {
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", std::localtime(&now));
    const fs::path base = fs::absolute(std::string("gallocsim-watch-") + stamp);
    fs::path folder = base;
    for (int n = 2; fs::exists(folder); ++n) {
        folder = base.string() + "-" + std::to_string(n);
    }
    return folder;
}

// Follows the capture folder and says each new session and call once.
class Reporter {
public:
    Reporter(const fs::path& folder, const AllocatorProfile* forced, std::ostream& err) : capture_(folder, forced), err_(err) {}

    void catch_up() {
        for (const live::WatchedCall& watched : capture_.catch_up()) {
            const live::FollowedSession& followed = *capture_.sessions()[watched.session];
            say_session(followed);
            err_ << kPrefix << watched_call_line(followed.session, watched.replay) << std::endl;
            tally_.add(watched.replay);
        }
        for (const auto& followed : capture_.sessions()) {
            say_session(*followed);
            if (!followed->problem.empty() && problems_told_.insert(followed->session.label()).second) {
                err_ << kPrefix << "cannot read on: " << followed->problem << std::endl;
                ++tally_.failed;  // what could not be read counts against the capture, as in conform
            }
        }
    }
    const WatchTally& tally() const { return tally_; }
    bool saw_a_session() const { return !sessions_told_.empty(); }

private:
    void say_session(const live::FollowedSession& followed) {
        if (!followed.problem.empty() && followed.session.buffer_types.empty()) {
            return;  // its header could not be read: the problem says so
        }
        if (sessions_told_.insert(followed.session.label()).second) {
            err_ << kPrefix << watched_session_line(followed.session) << std::endl;
            if (!followed.profile_note.empty()) {
                err_ << kPrefix << "  " << followed.profile_note << std::endl;
            }
        }
    }

    live::LiveCapture capture_;
    std::ostream& err_;
    WatchTally tally_;
    std::set<std::string> sessions_told_;
    std::set<std::string> problems_told_;
};

// The run: messages from the program's processes drive the reading; the folder is read once
// more at the end for whatever a process wrote without telling (one that could not connect).
int watch(const WatchOptions& options, std::ostream& err) {
    const AllocatorProfile* forced = nullptr;
    std::optional<Rules> rules;
    if (!options.ggml_version.empty()) {
        rules = chosen_rules(options.ggml_version);
        forced = &rules->profile();
    }
    const live::FoundLibrary library = live::find_capture_library();
    if (!library.path) {
        err << "gallocsim watch: " << library.problem << "\n";
        return 2;
    }
    const fs::path dir = options.out.empty() ? default_folder() : fs::absolute(options.out);
    if (const std::string problem = live::prepare_capture_folder(dir); !problem.empty()) {
        err << "gallocsim watch: " << problem << "\n";
        return 2;
    }
    err << kPrefix << "capturing " << options.command.front() << " into " << dir.string() << std::endl;
    live::LiveServer server;
    std::optional<live::ProgramRun> run;
    try {
        run.emplace(options.command, *library.path, dir, server.socket_path());
    } catch (const std::runtime_error& error) {
        err << "gallocsim watch: " << error.what() << "\n";
        return 127;
    }
    // The program started at the usual priority; watch itself steps back, so that on a busy
    // machine its replays wait for the program, never the program for them (the lines come
    // a little later instead: docs/performance.md, "Watching a running program").
    ::setpriority(PRIO_PROCESS, 0, kWatcherNiceness);
    Reporter reporter(dir, forced, err);
    std::optional<live::ProgramEnd> end;
    while (!(end = run->poll(false))) {
        bool news = false;
        for (const live::LiveMessage& message : server.read(std::chrono::milliseconds(100))) {
            news = news || message.kind == live::LiveMessage::Kind::planned || message.kind == live::LiveMessage::Kind::session;
            if (message.kind == live::LiveMessage::Kind::planning) {
                server.go(message.connection);  // watch never holds a call back
            }
        }
        if (news) {
            reporter.catch_up();
        }
    }
    reporter.catch_up();
    // What the capture could not see, from its log alone: the sessions are read already. A log
    // that cannot be read says nothing here, as load_capture's gaps() would not.
    std::vector<CaptureLogEntry> log;
    try {
        log = load_capture_log(dir);
    } catch (const GraphFileError&) {
    }
    for (const std::string& gap : gaps_in(log)) {
        err << kPrefix << gap << std::endl;
    }
    if (!reporter.saw_a_session()) {
        const std::string hidden = hidden_ggml_sentence(log);
        err << kPrefix << options.command.front() << " made no graph allocator call the capture saw"
            << (hidden.empty() ? " (docs/your-own-program.md, \"What defeats interposition\")" : ": " + hidden) << std::endl;
    }
    err << kPrefix << reporter.tally().line() << std::endl;
    err << kPrefix << options.command.front() << " " << end->words() << std::endl;
    if (end->exit_code != 0) {
        return end->exit_code;
    }
    return reporter.tally().failed == 0 ? 0 : 1;
}

} // namespace

// The subcommand on the command line (cli/command_list.hpp).
Subcommand add_watch_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<WatchOptions>();
    auto* command = app.add_subcommand(
        "watch", "run a ggml program and check each graph allocator call as it is made, against gallocsim's own plan "
                 "(usage: watch [--out DIR] -- PROGRAM [ARGS...]; its lines go to standard error, marked [watch])");
    command->add_option("--out", options->out,
                        "folder for the capture (created; must hold no capture); default: ./gallocsim-watch-DATE-TIME");
    command->add_option("--ggml-version", options->ggml_version,
                        "replay every call under this allocator version, not the one the version map gives the program's ggml");
    command->add_option("command", options->command, "the program and its arguments, after --")->required();
    return {command, [options, &io] { return run_guarded(io.err, [&] { return watch(*options, io.err); }); }};
}

} // namespace gallocsim::cli
