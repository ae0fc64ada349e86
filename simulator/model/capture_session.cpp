#include "simulator/model/capture_session.hpp"
#include "simulator/model/amount_text.hpp"

#include "simulator/model/input_file.hpp"
#include "simulator/model/json_reader.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <unordered_set>
#include <fstream>
#include <sstream>

namespace gallocsim {

namespace fs = std::filesystem;
using json_input::at;
using json_input::dot;
using json_input::Array;
using json_input::Object;
using json_input::Path;
using json_input::Reader;
using json_input::Value;

namespace {

constexpr const char* kCaptureLog = "capture-log.jsonl";

constexpr std::array kFunctions{
    std::pair{CapturedFunction::reserve, std::string_view("ggml_gallocr_reserve")},
    std::pair{CapturedFunction::reserve_n, std::string_view("ggml_gallocr_reserve_n")},
    std::pair{CapturedFunction::reserve_n_size, std::string_view("ggml_gallocr_reserve_n_size")},
    std::pair{CapturedFunction::alloc_graph, std::string_view("ggml_gallocr_alloc_graph")},
};


std::optional<std::string> optional_string(const Reader& r, Object object, const Path& path, const char* key) {
    const auto value = Reader::find_set(object, key);
    return value ? std::optional(r.string(*value, dot(path, key))) : std::nullopt;
}

std::vector<std::size_t> sizes_of(const Reader& r, Value value, const Path& path) {
    std::vector<std::size_t> sizes;
    for (std::size_t i = 0; const Value size : r.array(value, path)) {
        sizes.push_back(r.unsigned_integer(size, at(path, i++)));
    }
    return sizes;
}

// One per buffer id: the format writes a value for every id the allocator has.
void check_per_buffer(const Reader& r, std::size_t count, std::size_t buffers, const Path& path) {
    if (count != buffers) {
        r.fail(path, "has " + std::to_string(count) + " entries, the allocator has " + counted(buffers, "buffer id"));
    }
}

class SessionParser {
public:
    SessionParser(const fs::path& file, const fs::path& folder) {
        session_.file = file;
        session_.folder = folder;
    }
    // Goes on with a session read before (a live capture's file, read as it grows).
    explicit SessionParser(CaptureSession&& earlier) : session_(std::move(earlier)) {}

    void header(Value root, const std::string& source) {
        const Reader r(source);
        const Object doc = r.object(root, "$");
        r.only_keys(doc, "$", {"format", "allocator", "created_by", "ggml_version", "ggml_commit", "ggml_library",
                               "ggml_functions", "pid", "program", "buffer_types", "buffers"});
        const std::string format = r.string(r.member(doc, "$", "format"), "$.format");
        if (format != "ggml-session/1") {
            r.fail("$.format", "unsupported format \"" + format + "\" (expected \"ggml-session/1\")");
        }
        session_.allocator = static_cast<int>(r.index(r.member(doc, "$", "allocator"), "$.allocator", 1 << 20, "allocator"));
        session_.created_by = r.string(r.member(doc, "$", "created_by"), "$.created_by");
        if (session_.created_by != "ggml_gallocr_new" && session_.created_by != "ggml_gallocr_new_n") {
            r.fail("$.created_by", "must be \"ggml_gallocr_new\" or \"ggml_gallocr_new_n\", got \"" + session_.created_by + "\"");
        }
        session_.ggml_version = optional_string(r, doc, "$", "ggml_version");
        session_.ggml_commit = optional_string(r, doc, "$", "ggml_commit");
        session_.ggml_library = optional_string(r, doc, "$", "ggml_library").value_or("");
        if (const auto functions = Reader::find(doc, "ggml_functions")) {
            const Object listed = r.object(*functions, "$.ggml_functions");
            for (const auto [name, present] : listed) {
                const std::string path_text = "$.ggml_functions[\"" + std::string(name) + "\"]";
                session_.ggml_functions[std::string(name)] = r.boolean(present, Path(path_text));
            }
        }
        if (const auto pid = Reader::find(doc, "pid")) {
            r.unsigned_integer(*pid, "$.pid");
        }
        if (const auto program = Reader::find(doc, "program")) {
            for (std::size_t i = 0; const Value arg : r.array(*program, "$.program")) {
                r.string(arg, at("$.program", i++));
            }
        }
        const Value types = r.member(doc, "$", "buffer_types");
        for (std::size_t i = 0; const Value type : r.array(types, "$.buffer_types")) {
            const Path path = at("$.buffer_types", i++);
            r.only_keys(r.object(type, path), path, {"name", "alignment", "max_size"});
        }
        // The buffer types and ids are exactly a graph file's (less alloc_size, learnt per
        // call): the graph-file parser checks them, with the same JSON paths.
        std::string graph = R"({"format": "ggml-graph/1", "buffer_types": )" + simdjson::minify(types);
        if (const auto ids = Reader::find(doc, "buffers")) {
            graph += R"(, "buffers": )" + simdjson::minify(*ids);
        }
        graph += R"(, "tensors": [], "leafs": [], "nodes": []})";
        GraphFile buffers = parse_graph_file(graph, source);
        session_.buffer_types = std::move(buffers.buffer_types);
        session_.buffers = std::move(buffers.buffers);
    }

    void call(Value root, const std::string& source, int line) {
        const Reader r(source);
        const Object doc = r.object(root, "$");
        r.only_keys(doc, "$", {"call", "function", "graph", "nodes", "leafs", "returned", "replanned", "sizes", "alloc_size",
                               "alloc_size_example", "buffer_sizes", "chunk_sizes", "buffer_extra", "tensors"});
        CapturedCall call;
        call.line = line;
        const std::uint64_t number = r.unsigned_integer(r.member(doc, "$", "call"), "$.call");
        if (number != session_.calls.size()) {
            r.fail("$.call", "is " + std::to_string(number) + ", but the calls before it make this call " +
                                 std::to_string(session_.calls.size()) + " (calls are numbered 0, 1, ... in order)");
        }
        call.number = static_cast<int>(number);
        call.function = function(r, r.member(doc, "$", "function"));
        call.graph = graph_path(r, r.member(doc, "$", "graph"));
        call.nodes = r.unsigned_integer(r.member(doc, "$", "nodes"), "$.nodes");
        call.leafs = r.unsigned_integer(r.member(doc, "$", "leafs"), "$.leafs");
        returned_and_replanned(r, doc, call);
        alloc_sizes(r, doc, call);
        const std::size_t buffers = session_.buffers.size();
        call.buffer_sizes = sizes_of(r, r.member(doc, "$", "buffer_sizes"), "$.buffer_sizes");
        check_per_buffer(r, call.buffer_sizes.size(), buffers, "$.buffer_sizes");
        const Array chunks = r.array(r.member(doc, "$", "chunk_sizes"), "$.chunk_sizes");
        check_per_buffer(r, Reader::count(chunks), buffers, "$.chunk_sizes");
        for (const Value sizes : chunks) {
            call.chunk_sizes.push_back(sizes_of(r, sizes, at("$.chunk_sizes", call.chunk_sizes.size())));
        }
        if (const auto extra = Reader::find(doc, "buffer_extra")) {
            call.buffer_extra = sizes_of(r, *extra, "$.buffer_extra");
            if (call.buffer_extra->size() != session_.buffer_types.size()) {
                r.fail("$.buffer_extra", "has " + std::to_string(call.buffer_extra->size()) + " entries, the session has " +
                                             counted(session_.buffer_types.size(), "buffer type"));
            }
        }
        if (const auto sizes = Reader::find(doc, "sizes")) {
            if (call.function != CapturedFunction::reserve_n_size) {
                r.fail("$.sizes", "only ggml_gallocr_reserve_n_size calls write sizes");
            }
            call.sizes = sizes_of(r, *sizes, "$.sizes");
            check_per_buffer(r, call.sizes->size(), buffers, "$.sizes");
        }
        if (const auto placed = Reader::find(doc, "tensors")) {
            tensors(r, *placed, call);
        }
        session_.calls.push_back(std::move(call));
    }

    void cut(int line) {
        session_.truncated = "line " + std::to_string(line) +
                             " is not complete JSON (the program stopped while writing it): call " +
                             std::to_string(session_.calls.size()) + " and any calls after it are missing";
    }

    CaptureSession finish() {
        // The rule a buffer type follows is learnt from the tensors the calls saw: a call
        // whose tensors all have ggml_nbytes says "nbytes" even on CUDA, so one "cuda" decides.
        for (std::size_t t = 0; t < session_.buffer_types.size(); ++t) {
            const bool cuda = std::ranges::any_of(session_.calls, [&](const CapturedCall& c) {
                return c.alloc_size[t].rule == AllocSizeRule::cuda;
            });
            session_.buffer_types[t].alloc_size = cuda ? AllocSizeRule::cuda : AllocSizeRule::nbytes;
        }
        return std::move(session_);
    }

private:
    static CapturedFunction function(const Reader& r, Value value) {
        const std::string name = r.string(value, "$.function");
        for (const auto& [function, known] : kFunctions) {
            if (name == known) {
                return function;
            }
        }
        r.fail("$.function", "unknown function \"" + name +
                                 "\" (expected ggml_gallocr_reserve, _reserve_n, _reserve_n_size or _alloc_graph)");
    }

    static std::string graph_path(const Reader& r, Value value) {
        const std::string path = r.string(value, "$.graph");
        const fs::path relative(path);
        if (path.empty() || relative.is_absolute() ||
            std::ranges::any_of(relative, [](const fs::path& part) { return part == ".."; })) {
            r.fail("$.graph", "must be a path inside the capture folder, got \"" + path + "\"");
        }
        return path;
    }

    static void returned_and_replanned(const Reader& r, Object doc, CapturedCall& call) {
        const bool measures = call.function == CapturedFunction::reserve_n_size;
        if (measures) {
            if (Reader::find_set(doc, "returned")) {
                r.fail("$.returned", "must be null: ggml_gallocr_reserve_n_size returns nothing");
            }
        } else {
            call.returned = r.boolean(r.member(doc, "$", "returned"), "$.returned");
        }
        if (call.function == CapturedFunction::alloc_graph) {
            call.replanned = r.boolean(r.member(doc, "$", "replanned"), "$.replanned");
        } else if (Reader::find(doc, "replanned")) {
            r.fail("$.replanned", "only ggml_gallocr_alloc_graph calls say whether they re-planned");
        }
    }

    void alloc_sizes(const Reader& r, Object doc, CapturedCall& call) const {
        const Array rules = r.array(r.member(doc, "$", "alloc_size"), "$.alloc_size");
        if (const std::size_t count = Reader::count(rules); count != session_.buffer_types.size()) {
            r.fail("$.alloc_size", "has " + std::to_string(count) + " entries, the session has " +
                                       counted(session_.buffer_types.size(), "buffer type"));
        }
        for (const Value rule : rules) {
            const std::size_t i = call.alloc_size.size();
            const std::string name = r.string(rule, at("$.alloc_size", i));
            ObservedAllocSize observed;
            observed.rule = parse_alloc_size_rule(name);
            observed.recorded = name == "recorded";
            if (!observed.rule && !observed.recorded && name != "unknown") {
                r.fail(at("$.alloc_size", i),
                       "unknown rule \"" + name + "\" (expected \"nbytes\", \"cuda\", \"recorded\" or \"unknown\")");
            }
            if (!observed.rule && !observed.recorded) {
                const auto example = Reader::find(doc, "alloc_size_example");
                observed.example = example ? simdjson::minify(*example) : "no example given";
            }
            call.alloc_size.push_back(std::move(observed));
        }
    }

    void tensors(const Reader& r, Value value, CapturedCall& call) const {
        if (call.function != CapturedFunction::alloc_graph) {
            r.fail("$.tensors", "only ggml_gallocr_alloc_graph calls place tensors");
        }
        const int buffers = static_cast<int>(session_.buffers.size());
        auto& places = call.tensors.emplace();
        const Object placements = r.object(value, "$.tensors");
        std::unordered_set<std::string_view> seen;
        for (const auto [name, place] : placements) {
            const std::string path_text = "$.tensors[\"" + std::string(name) + "\"]";
            const Path path(path_text);
            if (!seen.insert(name).second) {
                r.fail(path, "placed twice");
            }
            r.only_keys(r.object(place, path), path, {"buffer", "chunk", "offset"});
            Placement planned;
            planned.buffer_id = r.index(r.member(place, path, "buffer"), dot(path, "buffer"), buffers, "buffer id");
            planned.chunk = r.index(r.member(place, path, "chunk"), dot(path, "chunk"), 1 << 20, "chunk");
            planned.offset = r.unsigned_integer(r.member(place, path, "offset"), dot(path, "offset"));
            places.emplace_back(std::string(name), planned);
        }
    }

    CaptureSession session_;
};

std::string read_text(const fs::path& file) { return read_input_file(file); }

// Whether a JSON text that failed to parse failed because it ended too soon.
// nlohmann says where it stopped; simdjson does not.
bool ends_too_soon(std::string_view text) {
    try {
        [[maybe_unused]] const auto doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& error) {
        return error.byte >= text.size();
    } catch (const nlohmann::json::exception&) {
    }
    return false;
}

} // namespace

std::string_view captured_function_name(CapturedFunction function) {
    return std::ranges::find(kFunctions, function, &std::pair<CapturedFunction, std::string_view>::first)->second;
}

std::optional<std::size_t> CapturedCall::unknown_alloc_size() const {
    auto it = std::ranges::find_if(alloc_size, [](const ObservedAllocSize& o) { return !o.rule && !o.recorded; });
    return it == alloc_size.end() ? std::nullopt : std::optional(static_cast<std::size_t>(it - alloc_size.begin()));
}

std::optional<fs::path> capture_holding(const fs::path& file) {
    const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
    std::error_code ec;
    if (file.extension() != ".jsonl" || !fs::is_regular_file(file, ec) || !is_capture_dir(folder)) {
        return std::nullopt;
    }
    return folder;
}

bool is_capture_dir(const fs::path& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
        return false;
    }
    for (const auto& entry : fs::directory_iterator(path, ec)) {
        const std::string name = entry.path().filename().string();
        if ((name.starts_with("session-") && entry.path().extension() == ".jsonl") || name == kCaptureLog) {
            return true;
        }
    }
    return false;
}

CaptureSession parse_capture_session(std::string_view text, const fs::path& file, const fs::path& folder) {
    SessionParser parser(file, folder);
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    if (lines.empty()) {
        throw GraphFileError(file.string() + ": empty: the program stopped before it described the allocator");
    }
    json_input::DocumentParser json;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const int line = static_cast<int>(i + 1);
        const std::string source = file.string() + ": line " + std::to_string(line);
        const auto doc = json.try_parse(lines[i]);
        if (!doc) {
            const bool last = i + 1 == lines.size();
            if (last && line > 1 && ends_too_soon(lines[i])) {
                parser.cut(line);
                break;
            }
            throw GraphFileError(source + ": " + (last && line == 1 ? "the allocator line is cut short (the program "
                                                                      "stopped while writing it): nothing to replay"
                                                                    : "not JSON: " + json_input::refusal_text(lines[i], json.last_refusal(), /*one_line=*/true)));
        }
        if (i == 0) {
            parser.header(*doc, source);
        } else {
            parser.call(*doc, source, line);
        }
    }
    return parser.finish();
}

void parse_more_calls(CaptureSession& session, std::string_view text, int first_line) {
    const fs::path file = session.file;
    SessionParser parser(std::move(session));
    json_input::DocumentParser json;
    int line = first_line;
    try {
        for (std::size_t start = 0; start < text.size(); ++line) {
            const std::size_t end = std::min(text.find('\n', start), text.size());
            const std::string_view content = text.substr(start, end - start);
            start = end + 1;
            const std::string source = file.string() + ": line " + std::to_string(line);
            const auto doc = json.try_parse(content);
            if (!doc) {
                throw GraphFileError(source + ": not JSON: " +
                                     json_input::refusal_text(content, json.last_refusal(), /*one_line=*/true));
            }
            parser.call(*doc, source, line);
        }
    } catch (...) {
        session = parser.finish();  // the calls read so far stay
        throw;
    }
    session = parser.finish();
}

CaptureSession load_capture_session(const fs::path& file, const fs::path& folder) {
    return parse_capture_session(read_text(file), file, folder);
}

std::vector<std::string> Capture::gaps() const { return gaps_in(log); }

std::vector<std::string> gaps_in(const std::vector<CaptureLogEntry>& log) {
    std::vector<std::string> gaps;
    for (const CaptureLogEntry& entry : log) {
        if (entry.kind != CaptureLogEntry::Kind::exit) {
            gaps.push_back((entry.kind == CaptureLogEntry::Kind::partial ? "partial: " : "") + entry.what +
                           " (process " + std::to_string(entry.pid) + ")");
        }
    }
    return gaps;
}

namespace {

// capture-log.jsonl: one JSON object a line, written by the capture library with O_APPEND.
std::vector<CaptureLogEntry> read_capture_log(const fs::path& file) {
    std::vector<CaptureLogEntry> entries;
    std::error_code missing;
    if (!fs::exists(file, missing)) {
        return entries;
    }
    std::istringstream in(read_input_file(file));
    json_input::DocumentParser json;
    int line = 0;
    for (std::string text; std::getline(in, text);) {
        const std::string source = file.string() + ": line " + std::to_string(++line);
        const auto root = json.try_parse(text);
        if (!root) {
            if (in.peek() == std::char_traits<char>::eof()) {
                break;  // cut short as the program ended: what came before stands
            }
            throw GraphFileError(source + ": not JSON: " + json_input::refusal_text(text, json.last_refusal(), /*one_line=*/true));
        }
        const Reader r(source);
        const Object doc = r.object(*root, "$");
        r.only_keys(doc, "$", {"pid", "event", "what", "ggml_library", "hidden_ggml_library", "allocators", "calls"});
        CaptureLogEntry entry;
        entry.pid = static_cast<long long>(r.unsigned_integer(r.member(doc, "$", "pid"), "$.pid"));
        const std::string event = r.string(r.member(doc, "$", "event"), "$.event");
        if (event == "partial" || event == "unsupported") {
            entry.kind = event == "partial" ? CaptureLogEntry::Kind::partial : CaptureLogEntry::Kind::unsupported;
            entry.what = r.string(r.member(doc, "$", "what"), "$.what");
        } else if (event == "exit") {
            entry.ggml_library = optional_string(r, doc, "$", "ggml_library").value_or("");
            entry.hidden_ggml_library = optional_string(r, doc, "$", "hidden_ggml_library").value_or("");
            entry.allocators = static_cast<int>(r.index(r.member(doc, "$", "allocators"), "$.allocators", 1 << 30, "count"));
            entry.calls = static_cast<int>(r.index(r.member(doc, "$", "calls"), "$.calls", 1 << 30, "count"));
        } else {
            r.fail("$.event", "unknown event \"" + event + "\" (expected partial, unsupported or exit)");
        }
        entries.push_back(std::move(entry));
    }
    return entries;
}

} // namespace

std::vector<CaptureLogEntry> load_capture_log(const fs::path& folder) { return read_capture_log(folder / kCaptureLog); }

std::string hidden_ggml_sentence(const std::vector<CaptureLogEntry>& log) {
    for (const CaptureLogEntry& entry : log) {
        if (entry.kind == CaptureLogEntry::Kind::exit && !entry.hidden_ggml_library.empty()) {
            return "it loaded " + entry.hidden_ggml_library +
                   ", which holds ggml's graph allocator but exports none of its functions (ggml linked in statically, "
                   "its symbols hidden), so a preloaded library cannot see its calls: capture a build of the program "
                   "that loads ggml as a shared library (libggml-base.so; llama.cpp's BUILD_SHARED_LIBS=ON, as "
                   "llama-cpp-python builds it) (docs/your-own-program.md)";
        }
    }
    return {};
}

Capture load_capture(const fs::path& folder) {
    Capture capture;
    capture.folder = folder;
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with("session-") && entry.path().extension() == ".jsonl") {
            files.push_back(entry.path());
        }
    }
    if (ec) {
        throw GraphFileError(folder.string() + ": cannot read the folder: " + ec.message());
    }
    std::ranges::sort(files);
    for (const fs::path& file : files) {
        try {
            capture.sessions.push_back(load_capture_session(file, folder));
        } catch (const GraphFileError& error) {
            capture.errors.emplace_back(error.what());
        }
    }
    std::ranges::sort(capture.sessions, {}, &CaptureSession::allocator);
    try {
        capture.log = load_capture_log(folder);
    } catch (const GraphFileError& error) {
        capture.errors.emplace_back(error.what());
    }
    return capture;
}

GraphFile load_call_graph(const CaptureSession& session, const CapturedCall& call) {
    const std::string where = session.file.string() + ": line " + std::to_string(call.line) + ": ";
    const fs::path path = session.folder / call.graph;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        throw GraphFileError(where + "$.graph: " + call.graph + " is missing from the capture");
    }
    const std::string text = read_text(path);
    if (ends_too_soon(text)) {
        throw GraphFileError(where + "$.graph: " + call.graph + " is cut short (" + std::to_string(text.size()) +
                             " bytes, and its JSON does not end)");
    }
    GraphFile file;
    try {
        file = parse_graph_file(text, path.string());
    } catch (const GraphFileError& error) {
        throw GraphFileError(where + "$.graph: " + call.graph + " is not a valid graph file: " + error.what());
    }
    auto check_count = [&](const char* key, std::size_t observed, std::size_t in_file, std::string_view what) {
        if (observed != in_file) {
            throw GraphFileError(where + "$." + key + ": the call planned " + counted(observed, what) + ", " + call.graph +
                                 " has " + counted(in_file, what));
        }
    };
    check_count("nodes", call.nodes, file.graph.nodes.size(), "node");
    check_count("leafs", call.leafs, file.graph.leafs.size(), "leaf");
    auto same_type = [](const BufferTypeSpec& a, const BufferTypeSpec& b) {
        return a.name == b.name && a.alignment == b.alignment && a.max_size == b.max_size;
    };
    if (file.buffers != session.buffers ||
        !std::ranges::equal(file.buffer_types, session.buffer_types, same_type)) {
        throw GraphFileError(where + "$.graph: " + call.graph +
                             " has other buffer types or buffer ids than the session's allocator");
    }
    file.buffer_types = session.buffer_types;  // with the alloc-size rules learnt from the calls
    return file;
}

} // namespace gallocsim
