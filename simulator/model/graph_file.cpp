#include "simulator/model/graph_file.hpp"
#include "simulator/model/input_file.hpp"
#include "simulator/model/json_reader.hpp"
#include "reference/dynamic_allocator.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <memory_resource>
#include <numeric>
#include <ranges>
#include <unordered_map>

namespace gallocsim {

using nlohmann::json;

namespace {

// Bytes a tensor may span: ggml caps chunks at SIZE_MAX/2, so anything larger is not a
// plan anyone can make, and keeping sizes below it keeps all later arithmetic exact.
constexpr std::size_t kMaxTensorBytes = SIZE_MAX / 4;

using json_input::Array;
using json_input::at;
using json_input::dot;
using json_input::in_quotes;
using json_input::Path;
using json_input::Object;
using json_input::Reader;
using json_input::Value;

// ggml_nbytes with every multiplication and addition checked: nullopt when the tensor
// would span more than kMaxTensorBytes.
std::optional<std::size_t> checked_nbytes(const Tensor& t) {
    if (std::ranges::any_of(t.ne, [](std::int64_t n) { return n <= 0; })) {
        return 0;
    }
    bool overflow = false;
    auto mul = [&](std::size_t a, std::size_t b) {
        if (a != 0 && b > kMaxTensorBytes / a) {
            overflow = true;
            return std::size_t{0};
        }
        return a * b;
    };
    auto add = [&](std::size_t a, std::size_t b) {
        if (b > kMaxTensorBytes - std::min(a, kMaxTensorBytes)) {
            overflow = true;
            return std::size_t{0};
        }
        return a + b;
    };
    auto extent = [&](int i) { return mul(static_cast<std::size_t>(t.ne[static_cast<std::size_t>(i)] - 1), t.nb[static_cast<std::size_t>(i)]); };
    const auto block = static_cast<std::size_t>(block_size(t.type));
    std::size_t bytes = block == 1 ? add(type_size(t.type), extent(0)) : mul(static_cast<std::size_t>(t.ne[0]), t.nb[0]) / block;
    for (int i = 1; i < kMaxDims; ++i) {
        bytes = add(bytes, extent(i));
    }
    if (overflow) {
        return std::nullopt;
    }
    return bytes;
}

// Names are read into tensors once, here: the parser keeps the file's tensors by name, keyed
// by views of the context's own names (a tensor in the context's deque never moves, and no
// tensor is renamed while the file is read).

class Parser {
public:
    Parser(Value root, const json_input::Origin& origin) : r_(origin), doc_(r_.object(root, "$")) {}

    GraphFile parse() {
        // The format first: a file of another kind gallocsim writes is named as such, not
        // reported by its first field a graph file lacks.
        const std::string format = r_.string(r_.member(doc_, "$", "format"), "$.format");
        if (format == "gallocsim-session/1") {
            r_.fail("$.format", "a GUI session (gallocsim-session/1), not a graph file: open it with gallocsim-gui");
        }
        if (format == "ggml-session/1") {
            r_.fail("$.format", "a session of a capture (ggml-session/1), not a graph file: give its capture folder");
        }
        if (format == "ggml-graph/1") {
            version_ = 1;
        } else if (format == "ggml-graph/2") {
            version_ = 2;
        } else {
            r_.fail("$.format", "unsupported format \"" + format + "\" (expected \"ggml-graph/1\" or \"ggml-graph/2\")");
        }
        r_.only_keys(doc_, "$", {"format", "name", "description", "buffer_types", "buffers", "tensors", "leafs",
                                 "nodes", "leaf_buffer_ids", "node_buffer_ids", "expected", "captured"});
        if (const auto name = Reader::find(doc_, "name")) {
            file_.name = r_.string(*name, "$.name");
        }
        if (const auto description = Reader::find(doc_, "description")) {
            file_.description = r_.string(*description, "$.description");
        }
        parse_buffer_types();
        parse_buffers();
        parse_tensors();
        file_.graph.leafs = parse_order("leafs");
        file_.graph.nodes = parse_order("nodes");
        check_graph_order();
        file_.leaf_buffer_ids = parse_buffer_ids("leaf_buffer_ids", file_.graph.leafs.size());
        file_.node_buffer_ids = parse_buffer_ids("node_buffer_ids", file_.graph.nodes.size());
        if (const auto expected = Reader::find(doc_, "expected")) {
            file_.expected = parse_expected(*expected);
        }
        if (const auto captured = Reader::find(doc_, "captured")) {
            file_.captured = parse_captured(*captured);
        }
        return std::move(file_);
    }

private:
    void parse_buffer_types() {
        const Array types = r_.array(r_.member(doc_, "$", "buffer_types"), "$.buffer_types");
        if (Reader::count(types) == 0) {
            r_.fail("$.buffer_types", "must list at least one buffer type");
        }
        for (std::size_t i = 0; const Value type : types) {
            const Path path = at("$.buffer_types", i++);
            const Object t = r_.object(type, path);
            r_.only_keys(t, path, {"name", "alignment", "max_size", "alloc_size"});
            BufferTypeSpec spec;
            spec.name = r_.string(r_.member(t, path, "name"), dot(path, "name"));
            if (std::ranges::any_of(file_.buffer_types, [&](const auto& s) { return s.name == spec.name; })) {
                r_.fail(dot(path, "name"), "duplicate buffer type name \"" + spec.name + "\"");
            }
            const std::uint64_t alignment = r_.unsigned_integer(r_.member(t, path, "alignment"), dot(path, "alignment"));
            if (!is_valid_alignment(alignment)) {
                r_.fail(dot(path, "alignment"), "must be a power of two, got " + std::to_string(alignment));
            }
            spec.alignment = alignment;
            if (const auto max_size_value = Reader::find_set(t, "max_size")) {
                const std::uint64_t max_size = r_.unsigned_integer(*max_size_value, dot(path, "max_size"));
                if (max_size == 0) {
                    r_.fail(dot(path, "max_size"), "must be positive");
                }
                spec.max_size = max_size;
            }
            if (const auto alloc_size = Reader::find(t, "alloc_size")) {
                const std::string rule = r_.string(*alloc_size, dot(path, "alloc_size"));
                auto parsed = parse_alloc_size_rule(rule);
                if (!parsed) {
                    r_.fail(dot(path, "alloc_size"), "unknown rule \"" + rule + "\" (expected \"nbytes\" or \"cuda\")");
                }
                spec.alloc_size = *parsed;
            }
            file_.buffer_types.push_back(std::move(spec));
        }
    }

    void parse_buffers() {
        const auto buffers_value = Reader::find(doc_, "buffers");
        if (!buffers_value) {
            for (std::size_t i = 0; i < file_.buffer_types.size(); ++i) {
                file_.buffers.push_back(static_cast<int>(i));
            }
            return;
        }
        const Array buffers = r_.array(*buffers_value, "$.buffers");
        if (Reader::count(buffers) == 0) {
            r_.fail("$.buffers", "must list at least one buffer id");
        }
        for (std::size_t i = 0; const Value buffer : buffers) {
            const std::string_view name = r_.text(buffer, at("$.buffers", i));
            auto it = std::ranges::find(file_.buffer_types, name, &BufferTypeSpec::name);
            if (it == file_.buffer_types.end()) {
                r_.fail(at("$.buffers", i), "unknown buffer type \"" + std::string(name) + "\"");
            }
            file_.buffers.push_back(static_cast<int>(it - file_.buffer_types.begin()));
            ++i;
        }
    }

    void parse_tensors() {
        const Array list = r_.array(r_.member(doc_, "$", "tensors"), "$.tensors");
        std::vector<Object> tensors;
        tensors.reserve(Reader::count(list));
        index_.reserve(tensors.capacity());
        // First pass: names, so sources may refer to tensors listed later.
        for (const Value value : list) {
            const std::size_t i = tensors.size();
            const Path path = at("$.tensors", i);
            const Object t = tensors.emplace_back(r_.object(value, path));
            const std::string_view name = r_.text(r_.member(t, path, "name"), dot(path, "name"));
            if (name.empty()) {
                r_.fail(dot(path, "name"), "must not be empty");
            }
            Tensor tensor;
            tensor.name = name;
            const Tensor& added = file_.context.add(std::move(tensor));
            if (!index_.try_emplace(added.name, i).second) {
                r_.fail(dot(path, "name"), "duplicate tensor name", name);
            }
        }
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            parse_tensor(tensors[i], at("$.tensors", i), file_.context.tensors()[i]);
        }
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            check_view(at("$.tensors", i), file_.context.tensors()[i]);
        }
        check_cycles();
    }

    Tensor* tensor_at(std::string_view name) {
        const auto found = index_.find(name);
        return found == index_.end() ? nullptr : &file_.context.tensors()[found->second];
    }

    Tensor* tensor_named(Value value, const Path& path, std::string_view owner) {
        const std::string_view name = r_.text(value, path, owner);
        Tensor* tensor = tensor_at(name);
        if (tensor == nullptr) {
            r_.fail(path, "unknown tensor \"" + std::string(name) + "\"", owner);
        }
        return tensor;
    }

    // An optional field that names one of a set (a type, an op): what `parse` makes of its name,
    // nullopt when the field is absent, an error naming the field when the name is unknown.
    template <class Parse>
    auto named_field(Object t, const Path& path, const char* key, std::string_view tensor, Parse parse) {
        decltype(parse(std::string_view())) parsed;
        if (const auto value = Reader::find(t, key)) {
            const std::string_view text = r_.text(*value, dot(path, key), tensor);
            parsed = parse(text);
            if (!parsed) {
                r_.fail(dot(path, key), "unknown " + std::string(key) + " \"" + std::string(text) + "\"", tensor);
            }
        }
        return parsed;
    }

    void parse_tensor(Object t, const Path& path, Tensor& tensor) {
        const std::string& name = tensor.name;
        r_.only_keys(t, path, {"name", "original_name", "type", "ne", "nb", "op", "op_params", "src", "view_src", "view_offs",
                               "flags", "data", "alloc_size"}, name);
        if (const auto original = Reader::find(t, "original_name")) {
            file_.original_names[tensor.index] = r_.string(*original, dot(path, "original_name"), name);
        }
        if (const auto type = named_field(t, path, "type", name, [](std::string_view text) { return parse_type(text); })) {
            tensor.type = *type;
        }
        const Array ne = r_.array(r_.member(t, path, "ne", name), dot(path, "ne"), name);
        if (const std::size_t dims = Reader::count(ne); dims == 0 || dims > kMaxDims) {
            r_.fail(dot(path, "ne"), "must have 1 to 4 element counts, got " + std::to_string(dims), name);
        }
        for (std::size_t d = 0; const Value count : ne) {
            const std::int64_t n = r_.signed_integer(count, at(path, "ne", d), name);
            if (n < 0) {
                r_.fail(at(path, "ne", d), "must be >= 0, got " + std::to_string(n), name);
            }
            tensor.ne[d++] = n;
        }
        if (tensor.ne[0] % block_size(tensor.type) != 0) {
            r_.fail(dot(path, "ne"), "ne[0] = " + std::to_string(tensor.ne[0]) + " is not a multiple of " +
                                         std::string(type_name(tensor.type)) + "'s block size " +
                                         std::to_string(block_size(tensor.type)), name);
        }
        if (std::ranges::any_of(tensor.ne, [](std::int64_t n) { return n > (std::int64_t{1} << 48); })) {
            r_.fail(dot(path, "ne"), "element count too large", name);
        }
        tensor.nb = contiguous_strides(tensor.type, tensor.ne);
        if (const auto nb_value = Reader::find(t, "nb")) {
            const Array nb = r_.array(*nb_value, dot(path, "nb"), name);
            if (const std::size_t dims = Reader::count(nb); dims != kMaxDims) {
                r_.fail(dot(path, "nb"), "must have 4 strides, got " + std::to_string(dims), name);
            }
            for (std::size_t d = 0; const Value value : nb) {
                const std::uint64_t stride = r_.unsigned_integer(value, at(path, "nb", d), name);
                if (stride > kMaxTensorBytes) {
                    r_.fail(at(path, "nb", d), "stride too large: " + std::to_string(stride), name);
                }
                tensor.nb[d++] = stride;
            }
        }
        if (!checked_nbytes(tensor)) {
            r_.fail(dot(path, "ne"), "the tensor's size overflows (more than " + std::to_string(kMaxTensorBytes) + " bytes)", name);
        }
        if (const auto op = named_field(t, path, "op", name, [](std::string_view text) { return parse_op(text); })) {
            tensor.op = *op;
        }
        if (const auto params_value = Reader::find(t, "op_params")) {
            const Array params = r_.array(*params_value, dot(path, "op_params"), name);
            if (Reader::count(params) > kMaxOpParams) {
                r_.fail(dot(path, "op_params"), "at most 16 values", name);
            }
            for (std::size_t k = 0; const Value param : params) {
                const std::int64_t v = r_.signed_integer(param, at(path, "op_params", k), name);
                if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()) {
                    r_.fail(at(path, "op_params", k), "must fit in 32 bits", name);
                }
                tensor.op_params[k++] = static_cast<std::int32_t>(v);
            }
        }
        if (const auto src_value = Reader::find(t, "src")) {
            const Array src = r_.array(*src_value, dot(path, "src"), name);
            if (const std::size_t count = Reader::count(src); count > kMaxSrc) {
                r_.fail(dot(path, "src"), "has " + std::to_string(count) + " entries; at most 10 (GGML_MAX_SRC)", name);
            }
            for (std::size_t k = 0; const Value source : src) {
                if (!source.is_null()) {
                    tensor.src[k] = tensor_named(source, at(path, "src", k), name);
                }
                ++k;
            }
        }
        if (const auto view_src = Reader::find(t, "view_src")) {
            tensor.view_src = tensor_named(*view_src, dot(path, "view_src"), name);
            if (tensor.view_src == &tensor) {
                r_.fail(dot(path, "view_src"), "a tensor cannot view itself", name);
            }
        }
        if (const auto view_offs = Reader::find(t, "view_offs")) {
            tensor.view_offs = r_.unsigned_integer(*view_offs, dot(path, "view_offs"), name);
            if (tensor.view_src == nullptr && tensor.view_offs != 0) {
                r_.fail(dot(path, "view_offs"), "is set but the tensor has no view_src", name);
            }
        }
        if (const auto flags_value = Reader::find(t, "flags")) {
            for (std::size_t k = 0; const Value flag_value : r_.array(*flags_value, dot(path, "flags"), name)) {
                const std::string_view flag = r_.text(flag_value, at(path, "flags", k), name);
                auto it = std::ranges::find(kFlagNames, flag, &std::pair<TensorFlag, std::string_view>::second);
                if (it == kFlagNames.end()) {
                    r_.fail(at(path, "flags", k), "unknown flag \"" + std::string(flag) + "\" (expected input, output, param, loss or compute)", name);
                }
                tensor.flags.set(it->first);
                ++k;
            }
        }
        if (const auto data = Reader::find(t, "data")) {
            read_data(*data, dot(path, "data"), tensor);
        }
        if (const auto alloc_size = Reader::find(t, "alloc_size")) {
            file_.record_alloc_size(tensor, r_.unsigned_integer(*alloc_size, dot(path, "alloc_size"), name));
        }
    }

    // `data`: true (memory from outside), false, or, from version 2, "buffer" (in a buffer
    // from outside, no data yet).
    void read_data(Value data, const Path& path, const Tensor& tensor) {
        std::string_view word;
        if (data.get_string().get(word) == simdjson::SUCCESS) {
            if (word != "buffer") {
                r_.fail(path, "must be true, false or \"buffer\", got \"" + std::string(word) + "\"", tensor.name);
            }
            if (version_ < 2) {
                r_.fail(path, "\"buffer\" (in a buffer, no data yet) needs \"format\": \"ggml-graph/2\"", tensor.name);
            }
            file_.mark_on_external_buffer(tensor);
        } else if (r_.boolean(data, path, tensor.name)) {
            file_.mark_external(tensor);
        }
    }

    // ggml keeps view_src at the root of a chain of views, and a view lies inside it.
    void check_view(const Path& path, const Tensor& tensor) {
        if (tensor.view_src == nullptr) {
            return;
        }
        const Tensor& root = *tensor.view_src;
        if (root.view_src != nullptr) {
            r_.fail(dot(path, "view_src"), "names " + in_quotes(root.name) + ", which is itself a view of " +
                                              in_quotes(root.view_src->name) + "; view_src must name the root", tensor.name);
        }
        const std::size_t view_bytes = *checked_nbytes(tensor);
        const std::size_t root_bytes = *checked_nbytes(root);
        if (tensor.view_offs > root_bytes || view_bytes > root_bytes - tensor.view_offs) {
            r_.fail(dot(path, "view_offs"), "view of " + std::to_string(view_bytes) + " bytes at offset " +
                                               std::to_string(tensor.view_offs) + " reaches past its root " +
                                               in_quotes(root.name) + " of " + std::to_string(root_bytes) + " bytes", tensor.name);
        }
    }

    // A tensor may name itself as a source (ggml_cast does); any other cycle is an error.
    void check_cycles() {
        enum class Mark : std::uint8_t { none, open, done };
        auto& tensors = file_.context.tensors();
        std::vector<Mark> marks(tensors.size(), Mark::none);
        auto mark = [&](const Tensor* tensor) -> Mark& { return marks[tensor->index]; };
        for (const Tensor& start : tensors) {
            if (mark(&start) == Mark::done) {
                continue;
            }
            // Iterative depth-first search: (tensor, next source index).
            std::vector<std::pair<const Tensor*, int>> stack{{&start, 0}};
            mark(&start) = Mark::open;
            while (!stack.empty()) {
                auto& [tensor, next] = stack.back();
                if (next == kMaxSrc) {
                    mark(tensor) = Mark::done;
                    stack.pop_back();
                    continue;
                }
                const Tensor* src = tensor->src[static_cast<std::size_t>(next++)];
                if (src == nullptr || src == tensor) {
                    continue;
                }
                if (mark(src) == Mark::open) {
                    r_.fail("$.tensors", "cycle: " + in_quotes(src->name) + " depends on itself through " + in_quotes(tensor->name), src->name);
                }
                if (mark(src) == Mark::none) {
                    mark(src) = Mark::open;
                    stack.emplace_back(src, 0);
                }
            }
        }
    }

    std::vector<Tensor*> parse_order(const char* key) {
        const std::string path_text = std::string("$.") + key;
        const Path path(path_text);
        const Array list = r_.array(r_.member(doc_, "$", key), path);
        std::vector<Tensor*> order;
        in_graph_.resize(file_.context.tensors().size());
        for (const Value value : list) {
            const std::size_t i = order.size();
            Tensor* tensor = tensor_named(value, at(path, i), {});
            if (in_graph_[tensor->index]) {
                r_.fail(at(path, i), "listed twice in leafs/nodes", tensor->name);
            }
            in_graph_[tensor->index] = true;
            order.push_back(tensor);
        }
        return order;
    }

    // Every source of a node is a leaf or a node of the graph. It may come later in execution
    // order: ggml's scheduler places a view that keeps a split's input alive at the start of the
    // split, before the input's own (view) node, and ggml gives such a source its memory early,
    // as a parent. What ggml cannot plan is a view whose root is a node computed after it:
    // alloc_graph reaches the view while its root has no buffer and leaves it without memory.
    void check_graph_order() {
        // A node's position in execution order, by tensor; leafs and tensors outside the graph have none.
        constexpr std::size_t kNotANode = static_cast<std::size_t>(-1);
        std::vector<std::size_t> position(file_.context.tensors().size(), kNotANode);
        for (std::size_t i = 0; i < file_.graph.nodes.size(); ++i) {
            position[file_.graph.nodes[i]->index] = i;
        }
        for (std::size_t i = 0; i < file_.graph.nodes.size(); ++i) {
            const Tensor* node = file_.graph.nodes[i];
            for (const Tensor* src : node->src) {
                if (src != nullptr && src != node && !in_graph_[src->index]) {  // in_graph_: the leafs and the nodes
                    r_.fail(at("$.nodes", i), "source " + in_quotes(src->name) + " is neither a leaf nor a node of the graph", node->name);
                }
            }
            if (const std::size_t root = node->view_src ? position[node->view_src->index] : kNotANode;
                root != kNotANode && root > i) {
                r_.fail(at("$.nodes", i), "views " + in_quotes(node->view_src->name) + " before it is computed (node " +
                                              std::to_string(root) + "): ggml would leave it without memory",
                        node->name);
            }
        }
    }

    std::vector<int> parse_buffer_ids(const char* key, std::size_t expected) {
        std::vector<int> ids;
        const auto value = Reader::find(doc_, key);
        if (!value) {
            return ids;
        }
        const std::string path_text = std::string("$.") + key;
        const Path path(path_text);
        const Array list = r_.array(*value, path);
        if (const std::size_t count = Reader::count(list); count != expected) {
            r_.fail(path, "has " + std::to_string(count) + " entries for " + std::to_string(expected) + " tensors");
        }
        ids.reserve(expected);
        for (const Value id : list) {
            ids.push_back(r_.index(id, at(path, ids.size()), file_.buffer_count(), "buffer id"));
        }
        return ids;
    }

    CaptureOrigin parse_captured(Value value) {
        const Path path = "$.captured";
        const Object c = r_.object(value, path);
        r_.only_keys(c, path, {"session", "ggml_version", "ggml_commit"});
        CaptureOrigin origin;
        origin.session = r_.string(r_.member(c, path, "session"), dot(path, "session"));
        auto optional_string = [&](const char* key) -> std::optional<std::string> {
            const auto text = Reader::find_set(c, key);
            return text ? std::optional(r_.string(*text, dot(path, key))) : std::nullopt;
        };
        origin.ggml_version = optional_string("ggml_version");
        origin.ggml_commit = optional_string("ggml_commit");
        return origin;
    }

    PlanRecord parse_expected(Value value) {
        const Path path = "$.expected";
        const Object e = r_.object(value, path);
        // `warnings`: what `plan --json` adds about the graph's order; not part of the plan.
        r_.only_keys(e, path, {"source", "reserve", "alloc_graph", "buffer_sizes", "chunk_sizes", "tensors", "warnings"});
        PlanRecord plan;
        if (const auto source = Reader::find(e, "source")) {
            plan.source = r_.string(*source, dot(path, "source"));
        }
        plan.reserve = r_.boolean(r_.member(e, path, "reserve"), dot(path, "reserve"));
        plan.alloc_graph = r_.boolean(r_.member(e, path, "alloc_graph"), dot(path, "alloc_graph"));
        for (const Value size : r_.array(r_.member(e, path, "buffer_sizes"), dot(path, "buffer_sizes"))) {
            plan.buffer_sizes.push_back(r_.unsigned_integer(size, at(path, "buffer_sizes", plan.buffer_sizes.size())));
        }
        for (const Value chunks : r_.array(r_.member(e, path, "chunk_sizes"), dot(path, "chunk_sizes"))) {
            const Path chunk_path = at(path, "chunk_sizes", plan.chunk_sizes.size());
            std::vector<std::size_t> row;
            for (const Value size : r_.array(chunks, chunk_path)) {
                row.push_back(r_.unsigned_integer(size, at(chunk_path, row.size())));
            }
            plan.chunk_sizes.push_back(std::move(row));
        }
        const Path tensors_path = dot(path, "tensors");
        const Object tensors = r_.object(r_.member(e, path, "tensors"), tensors_path);
        std::vector<bool> placed(file_.context.tensors().size());
        for (const auto [name, place_value] : tensors) {
            const Path tensor_path = dot(tensors_path, name);
            const Tensor* known = tensor_at(name);
            if (known == nullptr) {
                r_.fail(tensor_path, "unknown tensor \"" + std::string(name) + "\"");
            }
            if (placed[known->index]) {
                r_.fail(tensor_path, "placed twice", name);
            }
            placed[known->index] = true;
            const Object place = r_.object(place_value, tensor_path, name);
            r_.only_keys(place, tensor_path, {"buffer", "chunk", "offset"}, name);
            Placement p;
            p.buffer_id = r_.index(r_.member(place, tensor_path, "buffer", name), dot(tensor_path, "buffer"), file_.buffer_count(), "buffer id");
            p.chunk = r_.index(r_.member(place, tensor_path, "chunk", name), dot(tensor_path, "chunk"), 16, "chunk");
            p.offset = r_.unsigned_integer(r_.member(place, tensor_path, "offset", name), dot(tensor_path, "offset"), name);
            plan.tensors.push_back({tensor_id(*known), p});
        }
        // The order of the file's tensors, however the file lists them.
        std::ranges::sort(plan.tensors, {}, &PlacedTensor::tensor);
        return plan;
    }

    Reader r_;
    Object doc_;
    GraphFile file_;
    int version_ = 1;  // of the format ("ggml-graph/N")
    // The file's tensors by name: their positions in file_.context. Its nodes come from one
    // arena, freed at once: a node allocated and freed on its own per tensor cost a graph of
    // 156,000 tensors a sixth of reading it.
    std::pmr::monotonic_buffer_resource index_nodes_;
    std::pmr::unordered_map<std::string_view, std::size_t> index_{&index_nodes_};
    std::vector<bool> in_graph_;  // by tensor index: listed in leafs or nodes
};

} // namespace

GraphFile::OutsideMemory GraphFile::outside_memory(const Tensor& tensor) const {
    return tensor.index < outside_.size() ? outside_[tensor.index] : OutsideMemory::none;
}

bool GraphFile::is_external(const Tensor& tensor) const {
    return outside_memory(tensor) == OutsideMemory::data;
}

bool GraphFile::is_on_external_buffer(const Tensor& tensor) const {
    return outside_memory(tensor) == OutsideMemory::buffer;
}

int GraphFile::format_version() const {
    return std::ranges::find(outside_, OutsideMemory::buffer) != outside_.end() ? 2 : 1;
}

std::optional<std::size_t> GraphFile::recorded_alloc_size(const Tensor& tensor) const {
    return tensor_sizes_ && tensor.index < tensor_sizes_->size() ? (*tensor_sizes_)[tensor.index] : std::nullopt;
}

void GraphFile::record_alloc_size(const Tensor& tensor, std::size_t size) {
    if (!tensor_sizes_) {
        tensor_sizes_ = std::make_shared<std::vector<std::optional<std::size_t>>>();
    } else if (tensor_sizes_.use_count() > 1) {  // a buffer type plans with the old table
        tensor_sizes_ = std::make_shared<std::vector<std::optional<std::size_t>>>(*tensor_sizes_);
    }
    if (tensor.index >= tensor_sizes_->size()) {
        tensor_sizes_->resize(tensor.index + 1);
    }
    (*tensor_sizes_)[tensor.index] = size;
}

void GraphFile::mark(const Tensor& tensor, OutsideMemory memory) {
    if (tensor.index >= outside_.size()) {
        outside_.resize(tensor.index + 1, OutsideMemory::none);
    }
    outside_[tensor.index] = memory;
}

void GraphFile::mark_external(const Tensor& tensor) {
    mark(tensor, OutsideMemory::data);
}

void GraphFile::mark_on_external_buffer(const Tensor& tensor) {
    mark(tensor, OutsideMemory::buffer);
}

void check_graph_bytes(const GraphFile& file, std::string_view source) {
    std::uint64_t alignment = 1;
    for (const BufferTypeSpec& spec : file.buffer_types) {
        alignment = std::max<std::uint64_t>(alignment, spec.alignment);
    }
    std::uint64_t total = 0;
    for (const Tensor& tensor : file.context.tensors()) {
        if (tensor.is_view() || file.is_external(tensor)) {
            continue;
        }
        const std::uint64_t size = std::max({alloc_size_by_rule(AllocSizeRule::nbytes, tensor),
                                             alloc_size_by_rule(AllocSizeRule::cuda, tensor),
                                             file.recorded_alloc_size(tensor).value_or(0)});
        // size + alignment - 1 cannot wrap for sizes up to 2^62 and alignments up to 2^63.
        const std::uint64_t aligned = size > kMaxGraphBytes ? size : (size + alignment - 1) / alignment * alignment;
        if (aligned > kMaxGraphBytes - total) {
            throw GraphFileError(std::string(source) + ": the tensors need more than 2^62 bytes (4 EiB) with no reuse, " +
                                 "each rounded up to the alignment " + std::to_string(alignment) +
                                 "; plans this large are not computed (their sums would not be exact)");
        }
        total += aligned;
    }
}

GraphFile parse_graph_file(std::string_view text, std::string_view source_name, std::string_view json_root) {
    const json_input::Origin origin(source_name, json_root);
    json_input::DocumentParser parser;
    GraphFile file = Parser(parser.parse(text, origin), origin).parse();
    check_graph_bytes(file, origin.place("$"));
    if (file.name.empty()) {
        // A graph without a name is called by its file ("model" for model.json), so that no
        // header reads ": 1 buffer". A file's name may hold bytes that are not UTF-8, which a
        // graph's name (a JSON string, in every --json report) cannot: they become U+FFFD.
        const std::string stem = std::filesystem::path(source_name).stem().string();
        file.name = json::parse(json(stem).dump(-1, ' ', false, json::error_handler_t::replace)).get<std::string>();
    }
    return file;
}

GraphFile load_graph_file(const std::filesystem::path& path) {
    return parse_graph_file(read_input_file(path), path.string());
}

TensorsByName tensors_by_name(const Context& tensors) {
    TensorsByName by_name;
    by_name.reserve(tensors.size());
    for (const Tensor& tensor : tensors.tensors()) {
        by_name.try_emplace(tensor.name, tensor_id(tensor));  // the first with the name keeps it
    }
    return by_name;
}

std::string plan_record_to_json(const PlanRecord& plan, const Context& tensors, int indent) {
    nlohmann::ordered_json out;
    if (!plan.source.empty()) {
        out["source"] = plan.source;
    }
    out["reserve"] = plan.reserve;
    out["alloc_graph"] = plan.alloc_graph;
    out["buffer_sizes"] = plan.buffer_sizes;
    out["chunk_sizes"] = plan.chunk_sizes;
    // Appended to the object's underlying list: ordered_json's own insertion looks for the
    // key first, which made writing a plan quadratic; a plan's names are unique already.
    auto& placed = out["tensors"] = nlohmann::ordered_json::object();
    auto& entries = static_cast<nlohmann::ordered_json::object_t::Container&>(placed.get_ref<nlohmann::ordered_json::object_t&>());
    entries.reserve(plan.tensors.size());
    for (const auto& [tensor, place] : plan.tensors) {
        entries.emplace_back(tensor_name(tensors, tensor),
                             nlohmann::ordered_json{{"buffer", place.buffer_id}, {"chunk", place.chunk}, {"offset", place.offset}});
    }
    return out.dump(indent, ' ', /*ensure_ascii=*/true);  // ASCII: safe on a terminal, exact when parsed
}

std::string graph_file_to_json(const GraphFile& file, int indent) {
    using ojson = nlohmann::ordered_json;
    ojson out;
    out["format"] = "ggml-graph/" + std::to_string(file.format_version());
    if (!file.name.empty()) {
        out["name"] = file.name;
    }
    if (!file.description.empty()) {
        out["description"] = file.description;
    }
    out["buffer_types"] = ojson::array();
    for (const auto& spec : file.buffer_types) {
        ojson t{{"name", spec.name}, {"alignment", spec.alignment}};
        if (spec.max_size) {
            t["max_size"] = *spec.max_size;
        }
        if (spec.alloc_size != AllocSizeRule::nbytes) {
            t["alloc_size"] = alloc_size_rule_name(spec.alloc_size);
        }
        out["buffer_types"].push_back(t);
    }
    // One id per type, in order, is the default. (Not views::iota: clang 14 cannot use
    // libstdc++ 12's iota_view, and the fuzz preset builds with clang 14.)
    std::vector<int> one_per_type(file.buffer_types.size());
    std::iota(one_per_type.begin(), one_per_type.end(), 0);
    const bool default_buffers = file.buffers == one_per_type;
    if (!default_buffers) {
        out["buffers"] = ojson::array();
        for (int type : file.buffers) {
            out["buffers"].push_back(file.buffer_types[static_cast<std::size_t>(type)].name);
        }
    }
    out["tensors"] = ojson::array();
    for (const Tensor& t : file.context.tensors()) {
        ojson j{{"name", t.name}};
        if (auto original = file.original_names.find(t.index); original != file.original_names.end()) {
            j["original_name"] = original->second;
        }
        j["type"] = type_name(t.type);
        std::size_t dims = kMaxDims;
        while (dims > 1 && t.ne[dims - 1] == 1) {
            --dims;
        }
        j["ne"] = std::vector<std::int64_t>(t.ne.begin(), t.ne.begin() + static_cast<std::ptrdiff_t>(dims));
        if (t.nb != contiguous_strides(t.type, t.ne)) {
            j["nb"] = t.nb;
        }
        if (t.op != Op::NONE) {
            j["op"] = op_name(t.op);
        }
        if (std::ranges::any_of(t.op_params, [](std::int32_t v) { return v != 0; })) {
            std::size_t n = kMaxOpParams;
            while (n > 0 && t.op_params[n - 1] == 0) {
                --n;
            }
            j["op_params"] = std::vector<std::int32_t>(t.op_params.begin(), t.op_params.begin() + static_cast<std::ptrdiff_t>(n));
        }
        std::size_t n_src = kMaxSrc;
        while (n_src > 0 && t.src[n_src - 1] == nullptr) {
            --n_src;
        }
        if (n_src > 0) {
            j["src"] = ojson::array();
            for (std::size_t k = 0; k < n_src; ++k) {
                j["src"].push_back(t.src[k] ? ojson(t.src[k]->name) : ojson(nullptr));
            }
        }
        if (t.view_src) {
            j["view_src"] = t.view_src->name;
            if (t.view_offs != 0) {
                j["view_offs"] = t.view_offs;
            }
        }
        if (t.flags.bits() != 0) {
            j["flags"] = ojson::array();
            for (const auto& [flag, flag_name] : kFlagNames) {
                if (t.flags.has(flag)) {
                    j["flags"].push_back(flag_name);
                }
            }
        }
        if (file.is_external(t)) {
            j["data"] = true;
        } else if (file.is_on_external_buffer(t)) {
            j["data"] = "buffer";
        }
        if (const auto size = file.recorded_alloc_size(t)) {
            j["alloc_size"] = *size;
        }
        out["tensors"].push_back(std::move(j));
    }
    auto names = [](const std::vector<Tensor*>& list) {
        ojson a = ojson::array();
        for (const Tensor* t : list) {
            a.push_back(t->name);
        }
        return a;
    };
    out["leafs"] = names(file.graph.leafs);
    out["nodes"] = names(file.graph.nodes);
    if (!file.leaf_buffer_ids.empty()) {
        out["leaf_buffer_ids"] = file.leaf_buffer_ids;
    }
    if (!file.node_buffer_ids.empty()) {
        out["node_buffer_ids"] = file.node_buffer_ids;
    }
    if (file.expected) {
        out["expected"] = ojson::parse(plan_record_to_json(*file.expected, file.context, -1));
    }
    if (file.captured) {
        auto optional_string = [](const std::optional<std::string>& s) { return s ? ojson(*s) : ojson(nullptr); };
        out["captured"] = {{"session", file.captured->session}, {"ggml_version", optional_string(file.captured->ggml_version)},
                           {"ggml_commit", optional_string(file.captured->ggml_commit)}};
    }
    return out.dump(indent, ' ', /*ensure_ascii=*/true);  // ASCII: safe on a terminal, exact when parsed
}

} // namespace gallocsim
