// simulator/live: the watcher's socket spoken to by a hand-written process (the protocol of
// docs/architecture.md, "Live"), a capture folder followed while it is written, and programs
// started and ended. The capture library's end is tested against real programs in
// tests/e2e/watch_program.sh and gui/tests/live_run_test.cpp.
#include "simulator/live/live_capture.hpp"
#include "simulator/live/live_server.hpp"
#include "simulator/live/program_run.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gallocsim::live {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A watched process, written by hand: one socket, whole lines.
class Process {
public:
    explicit Process(const fs::path& socket) : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, socket.c_str(), sizeof(address.sun_path) - 1);
        if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
            throw std::runtime_error("cannot connect");
        }
    }
    ~Process() { close(); }
    void close() {
        if (fd_ >= 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }
    void send(const std::string& text) { ASSERT_EQ(::send(fd_, text.data(), text.size(), MSG_NOSIGNAL), static_cast<ssize_t>(text.size())); }
    // The next line from the watcher; empty when none comes within a second.
    std::string line() {
        while (buffer_.find('\n') == std::string::npos) {
            pollfd ready{fd_, POLLIN, 0};
            char chunk[512];
            if (::poll(&ready, 1, 1000) <= 0) {
                return {};
            }
            const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
            if (n <= 0) {
                return {};
            }
            buffer_.append(chunk, static_cast<std::size_t>(n));
        }
        const std::size_t end = buffer_.find('\n');
        std::string line = buffer_.substr(0, end);
        buffer_.erase(0, end + 1);
        return line;
    }

private:
    int fd_;
    std::string buffer_;
};

// Reads until `count` messages came (or two seconds passed).
std::vector<LiveMessage> read_messages(LiveServer& server, std::size_t count) {
    std::vector<LiveMessage> all;
    for (int tries = 0; tries < 40 && all.size() < count; ++tries) {
        for (LiveMessage& message : server.read(50ms)) {
            all.push_back(std::move(message));
        }
    }
    return all;
}

TEST(LiveServer, greets_a_new_process_with_where_it_must_wait) {
    LiveServer server({.stop_before = true, .stop_after_failure = false});
    Process process(server.socket_path());
    server.read(1000ms);  // accepts it
    EXPECT_EQ(nlohmann::json::parse(process.line()), (nlohmann::json{{"stop_before", true}, {"stop_after_failure", false}}));
    EXPECT_EQ(server.connected(), 1u);
    server.set_settings({.stop_before = false, .stop_after_failure = true});
    EXPECT_EQ(nlohmann::json::parse(process.line()), (nlohmann::json{{"stop_before", false}, {"stop_after_failure", true}}));
}

TEST(LiveServer, reads_each_message_with_the_fields_the_process_sent) {
    LiveServer server;
    Process process(server.socket_path());
    server.read(1000ms);
    process.line();
    process.send(R"({"event":"hello","pid":42,"capture":"/tmp/c"})" "\n"
                 R"({"event":"session","session":"session-0.jsonl","allocator":0})" "\n"
                 R"({"event":"planning","session":"session-0.jsonl","call":3,"function":"ggml_gallocr_alloc_graph",)"
                 R"("graph":"graphs/ab.json","nodes":78,"leafs":32})" "\n"
                 R"({"event":"planned","session":"session-0.jsonl","call":3,"returned":false})" "\n");
    const auto messages = read_messages(server, 4);
    ASSERT_EQ(messages.size(), 4u);
    EXPECT_EQ(messages[0].kind, LiveMessage::Kind::hello);
    EXPECT_EQ(messages[0].pid, 42);
    EXPECT_EQ(messages[0].capture, "/tmp/c");
    EXPECT_EQ(messages[1].kind, LiveMessage::Kind::session);
    EXPECT_EQ(messages[1].session, "session-0.jsonl");
    EXPECT_EQ(messages[2].kind, LiveMessage::Kind::planning);
    EXPECT_EQ(messages[2].call, 3);
    EXPECT_EQ(messages[2].function, "ggml_gallocr_alloc_graph");
    EXPECT_EQ(messages[2].graph, "graphs/ab.json");
    EXPECT_EQ(messages[2].nodes, 78u);
    EXPECT_EQ(messages[2].leafs, 32u);
    EXPECT_EQ(messages[3].kind, LiveMessage::Kind::planned);
    EXPECT_EQ(messages[3].returned, false);
    server.go(messages[2].connection);
    EXPECT_EQ(nlohmann::json::parse(process.line()), (nlohmann::json{{"go", true}}));
}

TEST(LiveServer, says_when_a_process_is_gone_and_lets_go_of_one_that_speaks_no_protocol) {
    LiveServer server;
    Process leaving(server.socket_path());
    Process garbling(server.socket_path());
    server.read(1000ms);
    leaving.close();
    garbling.send("this is not JSON\n");
    const auto messages = read_messages(server, 2);
    ASSERT_EQ(messages.size(), 2u);
    EXPECT_EQ(messages[0].kind, LiveMessage::Kind::gone);
    EXPECT_EQ(messages[1].kind, LiveMessage::Kind::gone);
    EXPECT_EQ(server.connected(), 0u);
}

TEST(LiveServer, removes_its_socket_when_it_goes) {
    fs::path socket;
    {
        LiveServer server;
        socket = server.socket_path();
        EXPECT_TRUE(fs::exists(socket));
    }
    EXPECT_FALSE(fs::exists(socket));
    EXPECT_FALSE(fs::exists(socket.parent_path()));
}

TEST(LiveMessages, name_the_field_a_message_lacks) {
    try {
        parse_live_message(R"({"event":"planning","session":"s","call":1})", 0);
        FAIL() << "a planning message without its function was read";
    } catch (const std::runtime_error& error) {
        EXPECT_STREQ(error.what(), "a \"planning\" message without \"function\"");
    }
    EXPECT_THROW(parse_live_message(R"({"event":"later"})", 0), std::runtime_error);
    EXPECT_THROW(parse_live_message(R"({"event":"session","session":"s","allocator":"zero"})", 0), std::runtime_error);
}

// tests/data/captures/tiny-llama (a capture conform reproduces call by call: cli_tests) is
// written again line by line into a new folder, as its program wrote it.
class FollowedCapture : public ::testing::Test {
protected:
    void SetUp() override {
        source_ = fs::path(GALLOCSIM_TEST_DATA_DIR) / "captures" / "tiny-llama";
        folder_ = fs::temp_directory_path() / ("gallocsim-live-test-" + std::to_string(::getpid()));
        fs::remove_all(folder_);
        fs::create_directories(folder_);
        fs::copy(source_ / "graphs", folder_ / "graphs");
        std::ifstream in(source_ / "session-0.jsonl");
        for (std::string line; std::getline(in, line);) {
            lines_.push_back(line + "\n");
        }
    }
    void TearDown() override { fs::remove_all(folder_); }
    void write(const std::string& text) {
        std::ofstream out(folder_ / "session-0.jsonl", std::ios::app);
        out << text;
    }

    fs::path source_, folder_;
    std::vector<std::string> lines_;  // the header, then one line per call
};

TEST_F(FollowedCapture, replays_each_call_once_as_its_line_is_written) {
    ASSERT_EQ(lines_.size(), 8u);  // the header and 7 calls
    LiveCapture capture(folder_, nullptr);
    EXPECT_TRUE(capture.catch_up().empty());
    write(lines_[0]);
    EXPECT_TRUE(capture.catch_up().empty());
    ASSERT_NE(capture.find("session-0.jsonl"), nullptr);
    for (std::size_t call = 0; call < 7; ++call) {
        const std::string& line = lines_[call + 1];
        write(line.substr(0, line.size() / 2));  // half a line: nothing to read yet
        EXPECT_TRUE(capture.catch_up().empty()) << "call " << call;
        write(line.substr(line.size() / 2));
        const auto watched = capture.catch_up();
        ASSERT_EQ(watched.size(), 1u) << "call " << call;
        EXPECT_EQ(watched[0].replay.index, call);
        EXPECT_EQ(watched[0].replay.outcome, CallOutcome::passed) << "call " << call;
    }
    EXPECT_EQ(capture.find("session-0.jsonl")->session.calls.size(), 7u);
}

TEST_F(FollowedCapture, stops_reading_a_session_at_a_bad_line_and_says_where) {
    LiveCapture capture(folder_, nullptr);
    write(lines_[0] + lines_[1]);
    EXPECT_EQ(capture.catch_up().size(), 1u);
    write(lines_[3]);  // call 2 where call 1 belongs
    EXPECT_TRUE(capture.catch_up().empty());
    const std::string& problem = capture.find("session-0.jsonl")->problem;
    EXPECT_NE(problem.find("session-0.jsonl: line 3: $.call: is 2"), std::string::npos) << problem;
}

TEST_F(FollowedCapture, predicts_a_pending_call_as_ggml_then_planned_it) {
    // Calls 0 to 2 read; call 3 pending: what ggml reported after it is in the capture's line.
    write(lines_[0] + lines_[1] + lines_[2] + lines_[3]);
    LiveCapture capture(folder_, nullptr);
    capture.catch_up();
    const FollowedSession& followed = *capture.find("session-0.jsonl");
    const nlohmann::json call3 = nlohmann::json::parse(lines_[4]);
    const PendingCall pending{*captured_function_named(call3["function"].get<std::string>()), call3["graph"], call3["nodes"],
                              call3["leafs"]};
    EXPECT_EQ(predicted_buffer_sizes(followed.session, pending, *followed.profile),
              call3["buffer_sizes"].get<std::vector<std::size_t>>());
    const CallTrace traced = trace_pending_call(followed.session, pending, *followed.profile);
    EXPECT_EQ(traced.file.context.size(), call3["nodes"].get<std::size_t>() + call3["leafs"].get<std::size_t>());
    EXPECT_FALSE(traced.trace.events.empty());
}

TEST(ProgramRun, tells_how_the_program_ended) {
    const fs::path nowhere = "/nonexistent/libgallocsim_capture.so";  // ld.so warns and goes on
    ProgramRun exits({"/bin/sh", "-c", "exit 3"}, nowhere, fs::temp_directory_path(), std::nullopt);
    const auto exited = exits.poll(true);
    ASSERT_TRUE(exited);
    EXPECT_EQ(exited->exit_code, 3);
    EXPECT_EQ(exited->words(), "exited with 3");
    ProgramRun killed({"/bin/sh", "-c", "kill -9 $$"}, nowhere, fs::temp_directory_path(), std::nullopt);
    const auto signalled = killed.poll(true);
    ASSERT_TRUE(signalled);
    EXPECT_EQ(signalled->exit_code, 128 + 9);
    EXPECT_EQ(signalled->words(), "was killed by signal 9");
    EXPECT_THROW(ProgramRun({"/nonexistent/program"}, nowhere, fs::temp_directory_path(), std::nullopt), std::runtime_error);
}

TEST(ProgramRun, names_the_capture_folder_and_the_socket_in_the_environment) {
    const fs::path out = fs::temp_directory_path() / ("gallocsim-env-" + std::to_string(::getpid()));
    ProgramRun run({"/bin/sh", "-c", "printf '%s|%s' \"$GALLOCSIM_CAPTURE_DIR\" \"$GALLOCSIM_LIVE\" > " + out.string()},
                   "/nonexistent/lib.so", "/the/folder", fs::path("/the/socket"));
    run.poll(true);
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), "/the/folder|/the/socket");
    fs::remove(out);
}

} // namespace
} // namespace gallocsim::live
