// libgallocsim_capture.so: loaded with LD_PRELOAD into a ggml program, it defines the graph
// allocator's public functions, so the program's calls (and ggml-base's own calls, which go
// through the PLT) come here first, and dlsym, so that programs which look ggml's functions
// up at run time (Python's ctypes) get them too; each call is forwarded to the real function
// and recorded as a session per allocator in $GALLOCSIM_CAPTURE_DIR (docs/graph-format.md,
// "Captures"). What the capture could not see is written to the folder's capture-log.jsonl,
// which `gallocsim capture` and `conform` report.
//
// It must never change what the program does: recording reads, never writes, ggml state;
// any failure to record prints one line and stops capturing, and the calls go on. A watcher
// named by $GALLOCSIM_LIVE (live_link.hpp) is told of each call and may hold one back.

#include "reference/version_map.hpp"
#include "simulator/capture/ggml_api.hpp"
#include "simulator/capture/graph_record.hpp"
#include "simulator/capture/interposition.hpp"
#include "simulator/capture/live_link.hpp"

#include <dlfcn.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#define GALLOCSIM_EXPORT extern "C" __attribute__((visibility("default")))

namespace gallocsim::capture {

namespace {

namespace fs = std::filesystem;

class WriteError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::string errno_text() { return std::strerror(errno); }

void write_all(int fd, const std::string& text, const fs::path& path) {
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            throw WriteError("cannot write " + path.string() + ": " + errno_text());
        }
        written += static_cast<std::size_t>(n);
    }
}

ojson program_command_line() {
    ojson args = ojson::array();
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    for (std::string arg; std::getline(in, arg, '\0');) {
        args.push_back(arg);
    }
    return args;
}

ojson optional_string(const char* (*function)()) {
    const char* text = function != nullptr ? function() : nullptr;
    return text != nullptr ? ojson(text) : ojson(nullptr);
}

// One allocator's session file and what the capture knows of its buffers.
struct Session {
    int allocator = 0;
    std::string file_name;  // session-N.jsonl
    int fd = -1;
    BufferLayout layout;
    ChunkLists chunks;  // live chunk buffers allocated inside this allocator's calls
    int calls = 0;

    ~Session() {
        if (fd >= 0) {
            ::close(fd);
        }
    }
};

enum class Function { reserve, reserve_n, reserve_n_size, alloc_graph };

const char* function_name(Function function) {
    switch (function) {
    case Function::reserve: return "ggml_gallocr_reserve";
    case Function::reserve_n: return "ggml_gallocr_reserve_n";
    case Function::reserve_n_size: return "ggml_gallocr_reserve_n_size";
    case Function::alloc_graph: return "ggml_gallocr_alloc_graph";
    }
    return "";
}

// Nesting on this thread: ggml_gallocr_new calls _new_n, alloc_graph may call reserve, which
// calls reserve_n; only the outermost call is recorded.
thread_local int call_depth = 0;
thread_local Session* current_session = nullptr;  // whose outermost call runs on this thread
thread_local bool replanned = false;              // a reserve ran inside the current call

// How a call the program made reached the capture, told by where it came from: a call whose
// return address lies inside another graph allocator function was made by ggml itself, from
// a call of the program's that the capture did not see (the program reached ggml without
// the dynamic linker, for example through a function pointer of its own).
struct Caller {
    const void* address = nullptr;
    const char* enclosing() const { return enclosing_allocator_function(address); }
};

class Capture {
public:
    std::recursive_mutex mutex;

    Capture() {
        const char* dir = std::getenv("GALLOCSIM_CAPTURE_DIR");
        if (dir != nullptr && dir[0] != '\0') {
            dir_ = dir;
        }
    }

    // The graph allocator's real functions; without them no call could go on.
    static const GgmlApi& real() {
        const GgmlApi* api = program_ggml();
        if (api == nullptr) {
            std::fputs("gallocsim capture: no loaded library but this one defines ggml_gallocr_new_n\n", stderr);
            std::abort();
        }
        return *api;
    }

    Session* session(ggml_gallocr_t galloc) {
        auto it = sessions_.find(galloc);
        return recording() && it != sessions_.end() ? it->second.get() : nullptr;
    }

    void allocator_created(ggml_gallocr_t galloc, const char* created_by, const ggml_backend_buffer_type_t* bufts, int count) {
        const int number = allocators_++;
        if (galloc == nullptr || !recording() || !ready()) {
            return;
        }
        guarded([&] {
            auto session = std::make_unique<Session>();
            session->allocator = number;
            session->layout = describe_buffers(real(), bufts, count);
            open_session(*session);
            const GgmlApi& ggml = real();
            ojson functions = ojson::object();
            for (std::size_t i = 0; i < kMarkerFunctions.size(); ++i) {
                functions[std::string(kMarkerFunctions[i].name)] = static_cast<bool>(ggml.markers[i]);
            }
            ojson header{{"format", "ggml-session/1"}, {"allocator", number}, {"created_by", created_by},
                         {"ggml_version", optional_string(ggml.ggml_version)},
                         {"ggml_commit", optional_string(ggml.ggml_commit)}, {"ggml_library", ggml.library},
                         {"ggml_functions", functions}, {"pid", ::getpid()}, {"program", program_command_line()},
                         {"buffer_types", buffer_types_json(session->layout)}, {"buffers", buffer_ids_json(session->layout)}};
            write_all(session->fd, dump(header) + "\n", *dir_ / session->file_name);
            live_.connect_once(dir_->string());
            live_.session_opened(session->file_name, number);
            sessions_[galloc] = std::move(session);
        });
    }

    // Something the program did that the capture could not record: once per kind and
    // allocator, to capture-log.jsonl (what `gallocsim capture` and conform report).
    void missed(const std::string& what) {
        if (!recording() || !reported_.insert(what).second) {
            return;
        }
        std::fprintf(stderr, "gallocsim capture: partial: %s\n", what.c_str());
        guarded([&] { log({{"event", "partial"}, {"what", what}}); });
    }

    // At exit: which ggml the process had loaded and what was recorded, so that a capture
    // with no sessions can say why.
    void process_ended() {
        if (!recording()) {
            return;
        }
        const std::string library = loaded_ggml_library();
        // With none exported, one may hold ggml inside (linked statically, symbols hidden).
        const std::string hidden = library.empty() ? library_with_hidden_ggml() : std::string();
        if (library.empty() && hidden.empty() && allocators_ == 0) {
            return;  // no ggml here (a shell or helper the program started): nothing to say
        }
        guarded([&] {
            ojson entry{{"event", "exit"}, {"ggml_library", library.empty() ? ojson(nullptr) : ojson(library)},
                        {"allocators", allocators_}, {"calls", calls_recorded_}};
            if (!hidden.empty()) {
                entry["hidden_ggml_library"] = hidden;
            }
            log(entry);
        });
    }

    void allocator_freed(ggml_gallocr_t galloc) { sessions_.erase(galloc); }

    void chunk_allocated(Session& session, ggml_backend_buffer_type_t buft, ggml_backend_buffer_t buffer, std::size_t asked) {
        guarded([&] { session.chunks[buft].push_back({buffer, real().ggml_backend_buffer_get_size(buffer), asked}); });
    }

    void buffer_freed(ggml_backend_buffer_t buffer) {
        for (auto& [galloc, session] : sessions_) {
            for (auto& [buft, list] : session->chunks) {
                std::erase_if(list, [&](const Chunk& chunk) { return chunk.buffer == buffer; });
            }
        }
    }

    // Records one outermost reserve/alloc_graph call around `forward`, which makes it.
    template <class Forward>
    auto record(Function function, ggml_gallocr_t galloc, ggml_cgraph* graph, const int* node_ids,
                const int* leaf_ids, const std::size_t* sizes, Caller caller, Forward forward) {
        if (const char* enclosing = caller.enclosing()) {
            // A reserve inside ggml_gallocr_reserve is that call itself (it only forwards); a
            // call inside anything else stands for a call whose own effect went unseen.
            if (std::string_view(enclosing) == "ggml_gallocr_reserve" && function == Function::reserve_n) {
                function = Function::reserve;
            } else {
                missed(std::string(function_name(function)) + " was called from inside " + enclosing +
                       ", a call of the program's that did not reach the capture");
                return forward();
            }
        }
        Session* session = this->session(galloc);
        if (session == nullptr && recording() && ready() && !sessions_.contains(galloc)) {
            missed(std::string(function_name(function)) + " on an allocator whose creation did not reach the capture");
        }
        std::optional<GraphRecord> before;
        if (session != nullptr) {
            guarded([&] { before.emplace(real(), graph, node_ids, leaf_ids); });
        }
        if (!before) {
            return forward();
        }
        if (live_.stops_before_calls()) {
            guarded([&] { show_before_call(*session, function, *before); });
        }
        current_session = session;
        replanned = false;
        auto result = forward();
        current_session = nullptr;
        if (recording()) {
            guarded([&] { write_call(*session, function, *before, galloc, returned_json(result), sizes); });
        }
        if (recording()) {  // the call's line is written
            live_.after_call(session->file_name, session->calls - 1, returned_value(result));
        }
        return result;
    }

private:
    // A child forked without exec inherits the sessions; its lines would interleave with the
    // parent's, so only the process that opened them writes.
    bool recording() const { return dir_.has_value() && !stopped_ && ::getpid() == pid_; }

    // Capture needs the functions and a layout it knows; a ggml without them is forwarded
    // to but not recorded, and the log says why.
    bool ready() {
        if (!real().usable()) {
            const std::string why = "not captured: " + real().unusable_reason();
            guarded([&] { log({{"event", "unsupported"}, {"what", why}}); });
            stop(why);
            return false;
        }
        return true;
    }

    void log(ojson line) {
        if (log_fd_ < 0) {
            std::error_code error;
            fs::create_directories(*dir_, error);
            const fs::path path = *dir_ / "capture-log.jsonl";
            log_fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
            if (log_fd_ < 0) {
                throw WriteError("cannot open " + path.string() + ": " + errno_text());
            }
        }
        ojson entry{{"pid", ::getpid()}};
        entry.update(line);
        write_all(log_fd_, dump(entry) + "\n", *dir_ / "capture-log.jsonl");
    }

    // Sessions stay open (a call in flight may still point at one); nothing more is written.
    void stop(const std::string& why) {
        if (!stopped_) {
            std::fprintf(stderr, "gallocsim capture: %s; capture stopped\n", why.c_str());
            stopped_ = true;
        }
    }

    template <class Body>
    void guarded(Body body) {
        try {
            body();
        } catch (const std::exception& error) {
            stop(error.what());
        } catch (...) {
            stop("unexpected error");
        }
    }

    // session-N.jsonl with the first N free: O_EXCL, so two processes never share a file.
    void open_session(Session& session) {
        std::error_code error;
        fs::create_directories(*dir_ / "graphs", error);
        if (error) {
            throw WriteError("cannot create " + (*dir_ / "graphs").string() + ": " + error.message());
        }
        for (;; ++next_session_) {
            session.file_name = "session-" + std::to_string(next_session_) + ".jsonl";
            const fs::path path = *dir_ / session.file_name;
            session.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (session.fd >= 0) {
                ++next_session_;
                return;
            }
            if (errno != EEXIST) {
                throw WriteError("cannot create " + path.string() + ": " + errno_text());
            }
        }
    }

    static ojson returned_json(bool result) { return result; }
    static ojson returned_json(std::nullptr_t) { return nullptr; }
    static std::optional<bool> returned_value(bool result) { return result; }
    static std::optional<bool> returned_value(std::nullptr_t) { return std::nullopt; }

    // The watcher wants the call before ggml plans it: the graph as it stands, its sizes by
    // the buffer types the call is asked to plan for, written like any call's graph; then
    // the watcher is told and the call waits until it says go.
    void show_before_call(const Session& session, Function function, GraphRecord& graph) {
        const auto rules = graph.alloc_size_rules(session.layout, graph.planned_types(session.layout));
        const std::string path = write_graph(graph.graph_json(session.layout, rules), session);
        live_.before_call({session.file_name, session.calls, function_name(function), path, graph.node_count(),
                           graph.leaf_count()});
    }

    void write_call(Session& session, Function function, GraphRecord& graph, ggml_gallocr_t galloc,
                    const ojson& returned, const std::size_t* sizes) {
        const GgmlApi& ggml = real();
        const BufferLayout& layout = session.layout;
        const bool placed = function == Function::alloc_graph && returned == true;
        const auto rules =
            graph.alloc_size_rules(layout, placed ? graph.placed_types(layout, session.chunks) : graph.planned_types(layout));
        const std::string graph_path = write_graph(graph.graph_json(layout, rules), session);

        ojson line{{"call", session.calls++}, {"function", function_name(function)}, {"graph", graph_path},
                   {"nodes", graph.node_count()}, {"leafs", graph.leaf_count()}, {"returned", returned}};
        if (function == Function::alloc_graph) {
            line["replanned"] = replanned;
        }
        if (sizes != nullptr) {
            line["sizes"] = std::vector<std::size_t>(sizes, sizes + layout.type_of_id.size());
        }
        for (const AllocSizeFinding& rule : rules) {
            line["alloc_size"].push_back(rule.rule);
        }
        ojson chunk_sizes = ojson::array();
        for (std::size_t id = 0; id < layout.type_of_id.size(); ++id) {
            line["buffer_sizes"].push_back(ggml.ggml_gallocr_get_buffer_size(galloc, static_cast<int>(id)));
            const int type = layout.type_of_id[id];
            ojson sizes_of_chunks = ojson::array();
            if (layout.first_id(type) == static_cast<int>(id)) {
                for (const Chunk& chunk : chunks_of(session, type)) {
                    sizes_of_chunks.push_back(chunk.size);
                }
            }
            chunk_sizes.push_back(std::move(sizes_of_chunks));
        }
        line["chunk_sizes"] = std::move(chunk_sizes);
        if (const ojson extra = buffer_extra(session); !extra.is_null()) {
            line["buffer_extra"] = extra;
        }
        if (placed) {
            line["tensors"] = graph.places(layout, session.chunks);
        }
        write_all(session.fd, dump(line) + "\n", *dir_ / session.file_name);
        ++calls_recorded_;
    }

    static const std::vector<Chunk>& chunks_of(const Session& session, int type) {
        static const std::vector<Chunk> none;
        auto list = session.chunks.find(session.layout.types[static_cast<std::size_t>(type)].buft);
        return list != session.chunks.end() ? list->second : none;
    }

    // Per buffer type, how many bytes its buffers report beyond what the allocator asked
    // for (Vulkan_Host adds 32; so did the 2024 CPU buffer type): null when every chunk is
    // exactly as asked, an error when a type's chunks differ in what they add.
    static ojson buffer_extra(const Session& session) {
        ojson extra = ojson::array();
        bool any = false;
        for (std::size_t type = 0; type < session.layout.types.size(); ++type) {
            std::optional<std::size_t> added;
            for (const Chunk& chunk : chunks_of(session, static_cast<int>(type))) {
                const std::size_t bytes = chunk.size >= chunk.asked ? chunk.size - chunk.asked : 0;
                if (added && *added != bytes) {
                    throw WriteError("buffer type " + session.layout.types[type].name +
                                     " adds different amounts to the buffers it allocates, which a session cannot record");
                }
                added = bytes;
            }
            extra.push_back(added.value_or(0));
            any = any || added.value_or(0) != 0;
        }
        return any ? extra : ojson(nullptr);
    }

    // graphs/HASH.json, named by the hash of the graph without name and `captured`; written
    // once (to a temporary name first, so a reader never sees half a file).
    std::string write_graph(ojson document, const Session& session) {
        const std::string hash = content_hash(dump(document));
        const std::string relative = "graphs/" + hash + ".json";
        const fs::path path = *dir_ / relative;
        if (graphs_written_.contains(hash) || fs::exists(path)) {
            return relative;
        }
        const GgmlApi& ggml = real();
        ojson file{{"format", document.at("format")}, {"name", hash}};  // the format first, as in every graph file
        file.update(document);
        file["captured"] = {{"session", session.file_name}, {"ggml_version", optional_string(ggml.ggml_version)},
                            {"ggml_commit", optional_string(ggml.ggml_commit)}};
        const fs::path temporary = path.string() + ".tmp" + std::to_string(::getpid());
        const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
            throw WriteError("cannot create " + temporary.string() + ": " + errno_text());
        }
        try {
            write_all(fd, graph_file_text(file), temporary);
        } catch (...) {
            ::close(fd);
            throw;
        }
        ::close(fd);
        if (std::rename(temporary.c_str(), path.c_str()) != 0) {
            throw WriteError("cannot rename " + temporary.string() + ": " + errno_text());
        }
        graphs_written_.insert(hash);
        return relative;
    }

    std::optional<fs::path> dir_;
    LiveLink live_;
    int log_fd_ = -1;
    std::set<std::string> reported_;
    pid_t pid_ = ::getpid();
    bool stopped_ = false;
    int allocators_ = 0;
    int calls_recorded_ = 0;
    int next_session_ = 0;
    std::unordered_map<ggml_gallocr_t, std::unique_ptr<Session>> sessions_;
    std::unordered_set<std::string> graphs_written_;
};

// Never destroyed: ggml frees buffers from static destructors, after ours would have run.
Capture& capture() {
    static Capture* instance = new Capture();
    return *instance;
}

// One interposed call: holds the capture's lock (the scheduler may call from several
// threads) and counts the nesting on this thread.
class CallScope {
public:
    CallScope() : lock_(capture().mutex) { ++call_depth; }
    ~CallScope() { --call_depth; }
    CallScope(const CallScope&) = delete;
    CallScope& operator=(const CallScope&) = delete;
    bool outermost() const { return call_depth == 1; }

private:
    std::unique_lock<std::recursive_mutex> lock_;
};

template <class Forward>
auto intercept(Function function, ggml_gallocr_t galloc, ggml_cgraph* graph, const int* node_ids,
               const int* leaf_ids, const std::size_t* sizes, Caller caller, Forward forward) {
    CallScope scope;
    if (!scope.outermost()) {
        if (function != Function::alloc_graph) {
            replanned = true;  // alloc_graph planned again (needs_realloc said yes)
        }
        return forward();
    }
    return capture().record(function, galloc, graph, node_ids, leaf_ids, sizes, caller, forward);
}

const GgmlApi& real() { return Capture::real(); }

// new_n reached from inside ggml_gallocr_new (whose own call went unseen) is that call.
const char* creator(const char* called, Caller caller) {
    const char* enclosing = caller.enclosing();
    return enclosing != nullptr && std::string_view(enclosing) == "ggml_gallocr_new" ? enclosing : called;
}

// At exit, after the program's own destructors: what the process loaded and recorded.
struct ExitRecord {
    ~ExitRecord() {
        std::lock_guard lock(capture().mutex);
        capture().process_ended();
    }
} exit_record;

} // namespace
} // namespace gallocsim::capture

using gallocsim::capture::Caller;
using gallocsim::capture::capture;
using gallocsim::capture::CallScope;
using gallocsim::capture::creator;
using gallocsim::capture::Function;
using gallocsim::capture::intercept;
using gallocsim::capture::real;

#define GALLOCSIM_CALLER Caller{__builtin_return_address(0)}

GALLOCSIM_EXPORT ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t* bufts, int n_bufs) {
    CallScope scope;
    ggml_gallocr_t galloc = real().ggml_gallocr_new_n(bufts, n_bufs);
    if (scope.outermost()) {
        capture().allocator_created(galloc, creator("ggml_gallocr_new_n", GALLOCSIM_CALLER), bufts, n_bufs);
    }
    return galloc;
}

GALLOCSIM_EXPORT ggml_gallocr_t ggml_gallocr_new(ggml_backend_buffer_type_t buft) {
    CallScope scope;
    ggml_gallocr_t galloc = real().ggml_gallocr_new(buft);
    if (scope.outermost()) {
        capture().allocator_created(galloc, "ggml_gallocr_new", &buft, 1);
    }
    return galloc;
}

GALLOCSIM_EXPORT void ggml_gallocr_free(ggml_gallocr_t galloc) {
    CallScope scope;
    real().ggml_gallocr_free(galloc);
    capture().allocator_freed(galloc);
}

GALLOCSIM_EXPORT bool ggml_gallocr_reserve(ggml_gallocr_t galloc, ggml_cgraph* graph) {
    return intercept(Function::reserve, galloc, graph, nullptr, nullptr, nullptr, GALLOCSIM_CALLER,
                     [&] { return real().ggml_gallocr_reserve(galloc, graph); });
}

GALLOCSIM_EXPORT bool ggml_gallocr_reserve_n(ggml_gallocr_t galloc, ggml_cgraph* graph, const int* node_buffer_ids,
                                             const int* leaf_buffer_ids) {
    return intercept(Function::reserve_n, galloc, graph, node_buffer_ids, leaf_buffer_ids, nullptr, GALLOCSIM_CALLER,
                     [&] { return real().ggml_gallocr_reserve_n(galloc, graph, node_buffer_ids, leaf_buffer_ids); });
}

// Defined for every version, forwarded only to a ggml that has it (0a2b6b20, 2025-12): a
// program cannot call it unless its ggml does.
GALLOCSIM_EXPORT void ggml_gallocr_reserve_n_size(ggml_gallocr_t galloc, ggml_cgraph* graph, const int* node_buffer_ids,
                                                  const int* leaf_buffer_ids, size_t* sizes) {
    if (real().ggml_gallocr_reserve_n_size == nullptr) {
        std::fputs("gallocsim capture: the program's ggml has no ggml_gallocr_reserve_n_size\n", stderr);
        std::abort();
    }
    intercept(Function::reserve_n_size, galloc, graph, node_buffer_ids, leaf_buffer_ids, sizes, GALLOCSIM_CALLER, [&] {
        real().ggml_gallocr_reserve_n_size(galloc, graph, node_buffer_ids, leaf_buffer_ids, sizes);
        return nullptr;
    });
}

GALLOCSIM_EXPORT bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, ggml_cgraph* graph) {
    return intercept(Function::alloc_graph, galloc, graph, nullptr, nullptr, nullptr, GALLOCSIM_CALLER,
                     [&] { return real().ggml_gallocr_alloc_graph(galloc, graph); });
}

// Only to learn an allocator's chunks: the buffers allocated inside its calls, in order.
// The thread that runs an allocator's call holds the lock already; other threads' buffers
// (weights, KV caches) are none of the capture's business.
// A buffer type may allocate through another (its bytes in CPU buffers, say): only the
// outermost allocation is the allocator's chunk.
GALLOCSIM_EXPORT ggml_backend_buffer_t ggml_backend_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    static thread_local int depth = 0;
    ++depth;
    ggml_backend_buffer_t buffer = real().ggml_backend_buft_alloc_buffer(buft, size);
    --depth;
    if (buffer != nullptr && depth == 0 && gallocsim::capture::current_session != nullptr) {
        capture().chunk_allocated(*gallocsim::capture::current_session, buft, buffer, size);
    }
    return buffer;
}

// A freed chunk leaves its list (reserve_n_size frees chunks it does not replace), so a
// list only ever holds live buffers.
GALLOCSIM_EXPORT void ggml_backend_buffer_free(ggml_backend_buffer_t buffer) {
    if (buffer != nullptr) {
        std::lock_guard lock(capture().mutex);
        capture().buffer_freed(buffer);
    }
    real().ggml_backend_buffer_free(buffer);
}

namespace gallocsim::capture {

void* capture_function(const char* symbol) {
    static const std::pair<std::string_view, void*> kFunctions[] = {
        {"ggml_gallocr_new", reinterpret_cast<void*>(&::ggml_gallocr_new)},
        {"ggml_gallocr_new_n", reinterpret_cast<void*>(&::ggml_gallocr_new_n)},
        {"ggml_gallocr_free", reinterpret_cast<void*>(&::ggml_gallocr_free)},
        {"ggml_gallocr_reserve", reinterpret_cast<void*>(&::ggml_gallocr_reserve)},
        {"ggml_gallocr_reserve_n", reinterpret_cast<void*>(&::ggml_gallocr_reserve_n)},
        {"ggml_gallocr_reserve_n_size", reinterpret_cast<void*>(&::ggml_gallocr_reserve_n_size)},
        {"ggml_gallocr_alloc_graph", reinterpret_cast<void*>(&::ggml_gallocr_alloc_graph)},
        {"ggml_backend_buft_alloc_buffer", reinterpret_cast<void*>(&::ggml_backend_buft_alloc_buffer)},
        {"ggml_backend_buffer_free", reinterpret_cast<void*>(&::ggml_backend_buffer_free)},
    };
    const std::string_view name(symbol);
    for (const auto& [function, address] : kFunctions) {
        if (function == name) {
            return address;
        }
    }
    return nullptr;
}

} // namespace gallocsim::capture

// Programs that look ggml's functions up themselves (Python's ctypes) get the capture's.
GALLOCSIM_EXPORT void* dlsym(void* handle, const char* symbol) {
    return gallocsim::capture::interposed_dlsym(handle, symbol, __builtin_return_address(0));
}
