#include "simulator/live/live_server.hpp"

#include <nlohmann/json.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace gallocsim::live {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::runtime_error system_error(const std::string& what) {
    return std::runtime_error(what + ": " + std::strerror(errno));
}

std::string settings_line(const LiveSettings& settings) {
    return json{{"stop_before", settings.stop_before}, {"stop_after_failure", settings.stop_after_failure}}.dump() + "\n";
}

template <class T>
T field(const json& message, const char* key, const char* kind) {
    const auto found = message.find(key);
    if (found == message.end()) {
        throw std::runtime_error(std::string("a \"") + kind + "\" message without \"" + key + "\"");
    }
    try {
        return found->get<T>();
    } catch (const json::exception&) {
        throw std::runtime_error(std::string("a \"") + kind + "\" message whose \"" + key + "\" has the wrong type");
    }
}

} // namespace

LiveMessage parse_live_message(const std::string& line, int connection) {
    const json message = json::parse(line, nullptr, false);
    if (!message.is_object() || !message.contains("event") || !message["event"].is_string()) {
        throw std::runtime_error("a line that is no message: " + line.substr(0, 80));
    }
    const std::string kind = message["event"].get<std::string>();
    LiveMessage parsed;
    parsed.connection = connection;
    const char* k = kind.c_str();
    if (kind == "hello") {
        parsed.kind = LiveMessage::Kind::hello;
        parsed.pid = field<long long>(message, "pid", k);
        parsed.capture = field<std::string>(message, "capture", k);
    } else if (kind == "session") {
        parsed.kind = LiveMessage::Kind::session;
        parsed.session = field<std::string>(message, "session", k);
        parsed.allocator = field<int>(message, "allocator", k);
    } else if (kind == "planning") {
        parsed.kind = LiveMessage::Kind::planning;
        parsed.session = field<std::string>(message, "session", k);
        parsed.call = field<int>(message, "call", k);
        parsed.function = field<std::string>(message, "function", k);
        parsed.graph = field<std::string>(message, "graph", k);
        parsed.nodes = field<std::size_t>(message, "nodes", k);
        parsed.leafs = field<std::size_t>(message, "leafs", k);
    } else if (kind == "planned") {
        parsed.kind = LiveMessage::Kind::planned;
        parsed.session = field<std::string>(message, "session", k);
        parsed.call = field<int>(message, "call", k);
        if (const auto returned = message.find("returned"); returned != message.end() && returned->is_boolean()) {
            parsed.returned = returned->get<bool>();
        }
    } else {
        throw std::runtime_error("an unknown message \"" + kind + "\"");
    }
    return parsed;
}

LiveServer::LiveServer(LiveSettings settings) : settings_(settings) {
    const fs::path base = fs::temp_directory_path();
    std::string pattern = (base / "gallocsim-live-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
        throw system_error("cannot create a folder for the live socket in " + base.string());
    }
    folder_ = pattern;
    socket_ = folder_ / "socket";
    sockaddr_un address{};
    if (socket_.string().size() >= sizeof(address.sun_path)) {
        fs::remove(folder_);
        throw std::runtime_error("the live socket's path is too long: " + socket_.string() + " (set TMPDIR shorter)");
    }
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket_.c_str(), sizeof(address.sun_path) - 1);
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(listen_fd_, 16) != 0) {
        const auto error = system_error("cannot listen on " + socket_.string());
        if (listen_fd_ >= 0) {
            ::close(listen_fd_);
        }
        std::error_code ignored;
        fs::remove_all(folder_, ignored);
        throw error;
    }
}

LiveServer::~LiveServer() {
    for (Client& client : clients_) {
        ::close(client.fd);
    }
    ::close(listen_fd_);
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
}

std::vector<LiveMessage> LiveServer::read(std::chrono::milliseconds timeout) {
    std::vector<pollfd> ready{{listen_fd_, POLLIN, 0}};
    for (const Client& client : clients_) {
        ready.push_back({client.fd, POLLIN, 0});
    }
    std::vector<LiveMessage> messages;
    const int polled = ::poll(ready.data(), ready.size(), static_cast<int>(timeout.count()));
    if (polled <= 0) {
        return messages;  // nothing yet, or a signal: the caller polls again
    }
    // Clients first, in connection order, then the new ones (whose greeting comes next time).
    for (std::size_t i = 1; i < ready.size(); ++i) {
        if (ready[i].revents != 0) {
            const int fd = ready[i].fd;
            auto client = std::ranges::find(clients_, fd, &Client::fd);
            if (client != clients_.end()) {
                read_client(*client, messages);
            }
        }
    }
    std::erase_if(clients_, [](const Client& client) { return client.fd < 0; });
    if (ready[0].revents != 0) {
        welcome_new_processes();
    }
    return messages;
}

void LiveServer::welcome_new_processes() {
    for (;;) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            return;  // none left (EAGAIN), or one that went away before it was taken
        }
        clients_.push_back({fd, next_id_++, {}});
        send(clients_.back(), settings_line(settings_));  // the greeting's answer
    }
}

void LiveServer::read_client(Client& client, std::vector<LiveMessage>& messages) {
    char buffer[8192];
    const ssize_t n = ::recv(client.fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    if (n <= 0) {
        drop(client, &messages);
        return;
    }
    client.pending.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t end; client.fd >= 0 && (end = client.pending.find('\n')) != std::string::npos;) {
        const std::string line = client.pending.substr(0, end);
        client.pending.erase(0, end + 1);
        try {
            messages.push_back(parse_live_message(line, client.id));
        } catch (const std::runtime_error&) {
            drop(client, &messages);  // a process that speaks no protocol is not waited for
        }
    }
}

void LiveServer::send(Client& client, const std::string& line) {
    std::size_t sent = 0;
    while (client.fd >= 0 && sent < line.size()) {
        const ssize_t n = ::send(client.fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            drop(client, nullptr);
            return;
        }
        sent += static_cast<std::size_t>(n);
    }
}

void LiveServer::drop(Client& client, std::vector<LiveMessage>* messages) {
    ::close(client.fd);
    client.fd = -1;
    if (messages != nullptr) {
        LiveMessage gone;
        gone.kind = LiveMessage::Kind::gone;
        gone.connection = client.id;
        messages->push_back(gone);
    }
}

void LiveServer::go(int connection) {
    if (auto client = std::ranges::find(clients_, connection, &Client::id); client != clients_.end()) {
        send(*client, json{{"go", true}}.dump() + "\n");
    }
    std::erase_if(clients_, [](const Client& client) { return client.fd < 0; });
}

void LiveServer::set_settings(LiveSettings settings) {
    settings_ = settings;
    for (Client& client : clients_) {
        send(client, settings_line(settings_));
    }
    std::erase_if(clients_, [](const Client& client) { return client.fd < 0; });
}

std::size_t LiveServer::connected() const { return clients_.size(); }

} // namespace gallocsim::live
