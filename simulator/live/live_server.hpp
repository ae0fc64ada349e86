#pragma once
// The watcher's end of the live link (simulator/capture/live_link.hpp is the program's): a
// Unix socket in a private temporary folder, which every process of the watched program
// that plans a graph connects to. Messages are JSON Lines (docs/architecture.md, "Live").
// Nothing here blocks longer than the time it is given: a watcher polls it from its own loop
// (the CLI's, or a timer of the GUI's).

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gallocsim::live {

// One line a watched process sent.
struct LiveMessage {
    enum class Kind {
        hello,     // a process connected (pid, capture)
        session,   // it created a graph allocator (session, allocator)
        planning,  // it is about to plan a call and waits for go (session, call, function, graph, nodes, leafs)
        planned,   // the call's line is in its session file (session, call, returned); waits when it failed and
                   // the watcher stops at failures
        gone,      // its end of the socket closed (it ended, or let go of the watcher)
    };
    Kind kind = Kind::hello;
    int connection = 0;  // which process: an id of the server's, from 0
    long long pid = 0;
    std::string capture;   // hello: the capture folder
    std::string session;   // session-N.jsonl
    int allocator = 0;
    int call = 0;
    std::string function;  // planning
    std::string graph;     // planning: relative to the capture folder
    std::size_t nodes = 0, leafs = 0;
    std::optional<bool> returned;  // planned; none for reserve_n_size
};

// What the watcher asks of every process: where they wait for it.
struct LiveSettings {
    bool stop_before = false;         // before each planning call
    bool stop_after_failure = false;  // after a call that failed (an out-of-memory keeps its graph shown)
    bool operator==(const LiveSettings&) const = default;
};

class LiveServer {
public:
    // Listens on a new socket; throws std::runtime_error when it cannot.
    explicit LiveServer(LiveSettings settings = {});
    LiveServer(const LiveServer&) = delete;
    LiveServer& operator=(const LiveServer&) = delete;
    ~LiveServer();  // closes every connection (a waiting process goes on) and removes the folder

    const std::filesystem::path& socket_path() const { return socket_; }

    // Accepts new processes and reads what they sent, waiting up to `timeout` for the first.
    std::vector<LiveMessage> read(std::chrono::milliseconds timeout);
    // Accepts new processes and answers their greeting, reading nothing: a watcher too busy
    // to read messages still answers within the capture's greeting time.
    void welcome_new_processes();
    // Lets the waiting process of `connection` go on.
    void go(int connection);
    // Changes the settings: every process is told.
    void set_settings(LiveSettings settings);
    const LiveSettings& settings() const { return settings_; }
    // Processes still connected.
    std::size_t connected() const;

private:
    struct Client {
        int fd = -1;
        int id = 0;
        std::string pending;  // a line read in part
    };
    void read_client(Client& client, std::vector<LiveMessage>& messages);
    void send(Client& client, const std::string& line);
    void drop(Client& client, std::vector<LiveMessage>* messages);

    std::filesystem::path folder_;
    std::filesystem::path socket_;
    int listen_fd_ = -1;
    int next_id_ = 0;
    std::vector<Client> clients_;
    LiveSettings settings_;
};

// One watched process's line in the protocol's terms; throws std::runtime_error for a line
// that is no message (the server then lets go of that process).
LiveMessage parse_live_message(const std::string& line, int connection);

} // namespace gallocsim::live
