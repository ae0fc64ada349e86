#include "simulator/capture/live_link.hpp"

#include <nlohmann/json.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gallocsim::capture {

namespace {

using json = nlohmann::json;

int connect_to(const char* path) {
    sockaddr_un address{};
    if (std::strlen(path) >= sizeof(address.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path, sizeof(address.sun_path) - 1);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
        const int error = errno;
        ::close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

} // namespace

LiveLink::~LiveLink() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

void LiveLink::connect_once(const std::string& capture_folder) {
    if (tried_) {
        return;
    }
    tried_ = true;
    const char* path = std::getenv("GALLOCSIM_LIVE");
    if (path == nullptr || path[0] == '\0') {
        return;
    }
    fd_ = connect_to(path);
    if (fd_ < 0) {
        std::fprintf(stderr, "gallocsim capture: cannot reach the watcher at %s: %s; going on unwatched\n", path,
                     std::strerror(errno));
        return;
    }
    send(json{{"event", "hello"}, {"pid", ::getpid()}, {"capture", capture_folder}}.dump() + "\n");
    if (connected() && !receive(kGreetingTimeout, false)) {
        let_go("the watcher did not answer within 10 s");
    }
}

void LiveLink::session_opened(const std::string& session, int allocator) {
    if (connected()) {
        send(json{{"event", "session"}, {"session", session}, {"allocator", allocator}}.dump() + "\n");
    }
}

bool LiveLink::stops_before_calls() {
    if (connected()) {
        receive(std::chrono::milliseconds(0), false);  // settings the watcher sent since the last call
    }
    return connected() && stop_before_;
}

void LiveLink::before_call(const PlanningCall& call) {
    if (!connected()) {
        return;
    }
    send(json{{"event", "planning"}, {"session", call.session}, {"call", call.call}, {"function", call.function},
              {"graph", call.graph}, {"nodes", call.nodes}, {"leafs", call.leafs}}.dump() + "\n");
    if (connected()) {
        receive(std::nullopt, true);
    }
}

void LiveLink::after_call(const std::string& session, int call, std::optional<bool> returned) {
    if (!connected()) {
        return;
    }
    send(json{{"event", "planned"}, {"session", session}, {"call", call},
              {"returned", returned ? json(*returned) : json(nullptr)}}.dump() + "\n");
    receive(std::chrono::milliseconds(0), false);
    if (connected() && returned == false && stop_after_failure_) {
        receive(std::nullopt, true);
    }
}

void LiveLink::send(const std::string& line) {
    std::size_t sent = 0;
    while (connected() && sent < line.size()) {
        const ssize_t n = ::send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            let_go("the watcher is gone");
            return;
        }
        sent += static_cast<std::size_t>(n);
    }
}

bool LiveLink::receive(std::optional<std::chrono::milliseconds> timeout, bool until_go) {
    bool got = false;
    while (connected()) {
        pollfd ready{fd_, POLLIN, 0};
        const int wait = got && !until_go ? 0 : timeout ? static_cast<int>(timeout->count()) : -1;
        const int polled = ::poll(&ready, 1, wait);
        if (polled < 0 && errno == EINTR) {
            continue;
        }
        if (polled == 0) {
            return got;
        }
        char buffer[4096];
        const ssize_t n = polled < 0 ? -1 : ::recv(fd_, buffer, sizeof(buffer), 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            let_go("the watcher is gone");
            return got;
        }
        pending_.append(buffer, static_cast<std::size_t>(n));
        for (std::size_t end; (end = pending_.find('\n')) != std::string::npos;) {
            const std::string line = pending_.substr(0, end);
            pending_.erase(0, end + 1);
            got = true;
            if (apply(line) && until_go) {
                return true;
            }
        }
    }
    return got;
}

// A watcher's line: its settings, or "go"; anything else is let go of with the watcher.
bool LiveLink::apply(const std::string& line) {
    const json message = json::parse(line, nullptr, false);
    if (!message.is_object()) {
        let_go("the watcher sent a line that is not a JSON object");
        return false;
    }
    if (const auto stop = message.find("stop_before"); stop != message.end() && stop->is_boolean()) {
        stop_before_ = stop->get<bool>();
    }
    if (const auto stop = message.find("stop_after_failure"); stop != message.end() && stop->is_boolean()) {
        stop_after_failure_ = stop->get<bool>();
    }
    const auto go = message.find("go");
    return go != message.end() && go->is_boolean() && go->get<bool>();
}

void LiveLink::let_go(const char* why) {
    if (fd_ >= 0) {
        std::fprintf(stderr, "gallocsim capture: %s; the program goes on unwatched\n", why);
        ::close(fd_);
        fd_ = -1;
    }
}

} // namespace gallocsim::capture
