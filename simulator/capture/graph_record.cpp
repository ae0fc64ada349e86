#include "simulator/capture/graph_record.hpp"

// The graph's leafs: no public function exposes them, so struct ggml_cgraph comes from the
// program's own ggml tree (ggml-impl.h), whose layout is the one the program runs.
#include <ggml-impl.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <set>

namespace gallocsim::capture {

namespace {

constexpr std::array<std::pair<int, const char*>, 5> kFlags{{
    {GGML_TENSOR_FLAG_INPUT, "input"}, {GGML_TENSOR_FLAG_OUTPUT, "output"}, {GGML_TENSOR_FLAG_PARAM, "param"},
    {GGML_TENSOR_FLAG_LOSS, "loss"}, {GGML_TENSOR_FLAG_COMPUTE, "compute"},
}};

// A name the format and the command line can carry: surrounding whitespace dropped, bytes
// that are not UTF-8 (a name cut at 63 bytes mid-character) replaced by '?', and never empty.
std::string usable_name(const char* original) {
    std::string name(original, strnlen(original, GGML_MAX_NAME));
    const auto first = name.find_first_not_of(" \t\r\n");
    name = first == std::string::npos ? std::string() : name.substr(first, name.find_last_not_of(" \t\r\n") - first + 1);
    try {
        (void)ojson(name).dump();
    } catch (const nlohmann::json::exception&) {
        std::ranges::replace_if(name, [](char c) { return static_cast<unsigned char>(c) >= 0x80; }, '?');
    }
    return name.empty() ? "unnamed" : name;
}

ojson max_size_json(std::size_t max_size) { return max_size == SIZE_MAX ? ojson(nullptr) : ojson(max_size); }

} // namespace

int BufferLayout::first_id(int type) const {
    return static_cast<int>(std::ranges::find(type_of_id, type) - type_of_id.begin());
}

int BufferLayout::type_index(ggml_backend_buffer_type_t buft) const {
    auto it = std::ranges::find(types, buft, &Type::buft);
    return it == types.end() ? -1 : static_cast<int>(it - types.begin());
}

BufferLayout describe_buffers(const GgmlApi& ggml, const ggml_backend_buffer_type_t* bufts, int count) {
    BufferLayout layout;
    for (int id = 0; id < count; ++id) {
        int type = layout.type_index(bufts[id]);
        if (type < 0) {
            std::string name = ggml.ggml_backend_buft_name(bufts[id]);
            const std::string base = name;
            for (int n = 2; std::ranges::find(layout.types, name, &BufferLayout::Type::name) != layout.types.end(); ++n) {
                name = base + "#" + std::to_string(n);
            }
            layout.types.push_back({bufts[id], name, ggml.ggml_backend_buft_get_alignment(bufts[id]),
                                    ggml.ggml_backend_buft_get_max_size(bufts[id])});
            type = static_cast<int>(layout.types.size()) - 1;
        }
        layout.type_of_id.push_back(type);
    }
    return layout;
}

ojson buffer_types_json(const BufferLayout& layout) {
    ojson types = ojson::array();
    for (const auto& type : layout.types) {
        types.push_back({{"name", type.name}, {"alignment", type.alignment}, {"max_size", max_size_json(type.max_size)}});
    }
    return types;
}

ojson buffer_ids_json(const BufferLayout& layout) {
    ojson ids = ojson::array();
    for (int type : layout.type_of_id) {
        ids.push_back(layout.types[static_cast<std::size_t>(type)].name);
    }
    return ids;
}

GraphRecord::GraphRecord(const GgmlApi& ggml, ggml_cgraph* graph, const int* node_buffer_ids, const int* leaf_buffer_ids)
    : ggml_(ggml) {
    collect(graph);
    name_tensors();
    if (node_buffer_ids != nullptr) {
        node_buffer_ids_.assign(node_buffer_ids, node_buffer_ids + nodes_.size());
    }
    if (leaf_buffer_ids != nullptr) {
        leaf_buffer_ids_.assign(leaf_buffer_ids, leaf_buffer_ids + leafs_.size());
    }
}

// Leafs, then nodes, each after its view root and sources (depth first, on an explicit
// stack: a graph listed out of order must not exhaust the program's stack).
void GraphRecord::collect(ggml_cgraph* graph) {
    auto add = [&](const ggml_tensor* root) {
        std::vector<std::pair<const ggml_tensor*, int>> stack{{root, -1}};  // -1: view_src next
        while (!stack.empty()) {
            auto& [tensor, next] = stack.back();
            if (index_.contains(tensor)) {
                stack.pop_back();
                continue;
            }
            const ggml_tensor* dependency = nullptr;
            while (dependency == nullptr && next < GGML_MAX_SRC) {
                const ggml_tensor* candidate = next < 0 ? tensor->view_src : tensor->src[next];
                ++next;
                if (candidate != nullptr && candidate != tensor && !index_.contains(candidate)) {
                    dependency = candidate;
                }
            }
            if (dependency != nullptr) {
                stack.emplace_back(dependency, -1);
                continue;
            }
            index_.emplace(tensor, tensors_.size());
            tensors_.push_back(tensor);
            had_memory_.push_back(tensor->data != nullptr);
            stack.pop_back();
        }
        return index_.at(root);
    };
    for (int i = 0; i < graph->n_leafs; ++i) {
        leafs_.push_back(add(graph->leafs[i]));
    }
    const int n_nodes = ggml_.ggml_graph_n_nodes(graph);
    for (int i = 0; i < n_nodes; ++i) {
        nodes_.push_back(add(ggml_.ggml_graph_node(graph, i)));
    }
}

// Unique names: in the order tensors are listed, a tensor keeps its usable name if no
// earlier tensor has it, and otherwise gets "NAME#2", "NAME#3", … (the first one free).
void GraphRecord::name_tensors() {
    std::set<std::string> taken;
    for (const ggml_tensor* tensor : tensors_) {
        const std::string base = usable_name(tensor->name);
        std::string name = base;
        for (int n = 2; taken.contains(name); ++n) {
            name = base + "#" + std::to_string(n);
        }
        taken.insert(name);
        names_.push_back(std::move(name));
    }
}

std::vector<int> GraphRecord::planned_types(const BufferLayout& layout) const {
    std::vector<int> types(tensors_.size(), -1);
    auto assign = [&](std::size_t tensor, std::size_t position, const std::vector<int>& ids) {
        const int id = ids.empty() ? 0 : ids[position];
        if (types[tensor] < 0 && id >= 0 && static_cast<std::size_t>(id) < layout.type_of_id.size()) {
            types[tensor] = layout.type_of_id[static_cast<std::size_t>(id)];
        }
    };
    for (std::size_t i = 0; i < leafs_.size(); ++i) {
        assign(leafs_[i], i, leaf_buffer_ids_);
    }
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        for (const ggml_tensor* src : tensors_[nodes_[i]]->src) {
            if (src != nullptr) {
                assign(index_of(src), i, node_buffer_ids_);
            }
        }
        assign(nodes_[i], i, node_buffer_ids_);
    }
    return types;
}

std::vector<int> GraphRecord::placed_types(const BufferLayout& layout) const {
    std::vector<int> types(tensors_.size(), -1);
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        if (tensors_[i]->buffer != nullptr) {
            types[i] = layout.type_index(ggml_.ggml_backend_buffer_get_type(tensors_[i]->buffer));
        }
    }
    return types;
}

// ggml-cuda's rule as the format defines it: quantized rows padded to 512 elements.
std::size_t GraphRecord::cuda_alloc_size(const ggml_tensor* tensor) const {
    constexpr std::int64_t kRowPadding = 512;
    std::size_t size = ggml_.ggml_nbytes(tensor);
    if (ggml_.ggml_is_quantized(tensor->type) && tensor->ne[0] % kRowPadding != 0) {
        size += ggml_.ggml_row_size(tensor->type, kRowPadding - tensor->ne[0] % kRowPadding);
    }
    return size;
}

std::vector<AllocSizeFinding> GraphRecord::alloc_size_rules(const BufferLayout& layout, const std::vector<int>& type_of_tensor) const {
    struct Evidence {
        bool nbytes = true, cuda = true;
    };
    std::vector<Evidence> evidence(layout.types.size());
    std::vector<AllocSizeFinding> findings(layout.types.size());
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        const ggml_tensor* tensor = tensors_[i];
        if (type_of_tensor[i] < 0 || had_memory_[i] || tensor->view_src != nullptr) {
            continue;  // the allocator never sizes these
        }
        const auto type = static_cast<std::size_t>(type_of_tensor[i]);
        const std::size_t size = ggml_.ggml_backend_buft_get_alloc_size(layout.types[type].buft, tensor);
        const std::size_t nbytes = ggml_.ggml_nbytes(tensor);
        evidence[type].nbytes = evidence[type].nbytes && size == nbytes;
        evidence[type].cuda = evidence[type].cuda && size == cuda_alloc_size(tensor);
        if (size != nbytes && size != cuda_alloc_size(tensor) && findings[type].example.is_null()) {
            findings[type].example = {{"tensor", names_[i]}, {"nbytes", nbytes}, {"alloc_size", size}};
        }
    }
    for (std::size_t type = 0; type < findings.size(); ++type) {
        findings[type].rule = evidence[type].nbytes ? "nbytes" : evidence[type].cuda ? "cuda" : "unknown";
        if (findings[type].rule != "unknown") {
            findings[type].example = nullptr;
        }
    }
    return findings;
}

ojson GraphRecord::places(const BufferLayout& layout, const ChunkLists& chunks) const {
    ojson places = ojson::object();
    // Appended to the object's underlying list (names_ are unique): ordered_json's own
    // insertion looks for the key first, which made each recorded call quadratic.
    auto& entries = static_cast<ojson::object_t::Container&>(places.get_ref<ojson::object_t&>());
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        const ggml_tensor* tensor = tensors_[i];
        if (had_memory_[i] || tensor->buffer == nullptr || tensor->data == nullptr) {
            continue;
        }
        const ggml_backend_buffer_type_t buft = ggml_.ggml_backend_buffer_get_type(tensor->buffer);
        const int type = layout.type_index(buft);
        auto list = chunks.find(buft);
        if (type < 0 || list == chunks.end()) {
            continue;
        }
        auto chunk = std::ranges::find(list->second, tensor->buffer, &Chunk::buffer);
        if (chunk == list->second.end()) {
            continue;
        }
        const auto* base = static_cast<const char*>(ggml_.ggml_backend_buffer_get_base(tensor->buffer));
        entries.emplace_back(names_[i], ojson{{"buffer", layout.first_id(type)},
                                              {"chunk", chunk - list->second.begin()},
                                              {"offset", static_cast<const char*>(tensor->data) - base}});
    }
    return places;
}

ojson GraphRecord::tensor_json(std::size_t index) const {
    const ggml_tensor* t = tensors_[index];
    ojson j{{"name", names_[index]}};
    if (names_[index] != std::string(t->name, strnlen(t->name, GGML_MAX_NAME))) {
        j["original_name"] = std::string(t->name, strnlen(t->name, GGML_MAX_NAME));
    }
    j["type"] = ggml_.ggml_type_name(t->type);
    std::size_t dims = GGML_MAX_DIMS;
    while (dims > 1 && t->ne[dims - 1] == 1) {
        --dims;
    }
    j["ne"] = std::vector<std::int64_t>(t->ne, t->ne + dims);
    // ggml_new_tensor's strides; nb is written only when the tensor has others.
    std::array<std::size_t, GGML_MAX_DIMS> contiguous{ggml_.ggml_type_size(t->type)};
    contiguous[1] = contiguous[0] * static_cast<std::size_t>(t->ne[0] / ggml_.ggml_blck_size(t->type));
    for (std::size_t d = 2; d < GGML_MAX_DIMS; ++d) {
        contiguous[d] = contiguous[d - 1] * static_cast<std::size_t>(t->ne[d - 1]);
    }
    if (!std::equal(contiguous.begin(), contiguous.end(), t->nb)) {
        j["nb"] = std::vector<std::size_t>(t->nb, t->nb + GGML_MAX_DIMS);
    }
    if (t->op != GGML_OP_NONE) {
        j["op"] = ggml_.ggml_op_name(t->op);
    }
    std::size_t n_src = GGML_MAX_SRC;
    while (n_src > 0 && t->src[n_src - 1] == nullptr) {
        --n_src;
    }
    for (std::size_t k = 0; k < n_src; ++k) {
        j["src"].push_back(t->src[k] != nullptr ? ojson(names_[index_of(t->src[k])]) : ojson(nullptr));
    }
    if (t->view_src != nullptr) {
        j["view_src"] = names_[index_of(t->view_src)];
        if (t->view_offs != 0) {
            j["view_offs"] = t->view_offs;
        }
    }
    for (const auto& [bit, flag] : kFlags) {
        if ((t->flags & bit) != 0) {
            j["flags"].push_back(flag);
        }
    }
    if (had_memory_[index]) {
        j["data"] = true;
    }
    return j;
}

ojson GraphRecord::graph_json(const BufferLayout& layout, const std::vector<AllocSizeFinding>& rules) const {
    ojson doc{{"format", "ggml-graph/1"}};
    for (std::size_t type = 0; type < layout.types.size(); ++type) {
        const auto& info = layout.types[type];
        ojson t{{"name", info.name}, {"alignment", info.alignment}};
        if (info.max_size != SIZE_MAX) {
            t["max_size"] = info.max_size;
        }
        if (rules[type].rule == "cuda") {  // an unknown rule cannot be written: the session says so
            t["alloc_size"] = "cuda";
        }
        doc["buffer_types"].push_back(std::move(t));
    }
    std::vector<int> one_per_type(layout.types.size());
    std::iota(one_per_type.begin(), one_per_type.end(), 0);
    if (layout.type_of_id != one_per_type) {
        doc["buffers"] = buffer_ids_json(layout);
    }
    doc["tensors"] = ojson::array();
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        doc["tensors"].push_back(tensor_json(i));
    }
    auto names = [&](const std::vector<std::size_t>& list) {
        ojson array = ojson::array();
        for (std::size_t i : list) {
            array.push_back(names_[i]);
        }
        return array;
    };
    doc["leafs"] = names(leafs_);
    doc["nodes"] = names(nodes_);
    if (!leaf_buffer_ids_.empty()) {
        doc["leaf_buffer_ids"] = leaf_buffer_ids_;
    }
    if (!node_buffer_ids_.empty()) {
        doc["node_buffer_ids"] = node_buffer_ids_;
    }
    return doc;
}

std::string dump(const ojson& value) {
    return value.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

std::string content_hash(const std::string& text) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (unsigned char c : text) {
        hash = (hash ^ c) * 0x100000001b3ULL;
    }
    char digits[17];
    std::snprintf(digits, sizeof digits, "%016llx", static_cast<unsigned long long>(hash));
    return digits;
}

std::string graph_file_text(const ojson& document) {
    std::string text = "{";
    const char* separator = "\n";
    for (const auto& [key, value] : document.items()) {
        text += separator + dump(ojson(key)) + ": ";
        separator = ",\n";
        if (value.is_array() && !value.empty() && value.front().is_object()) {
            text += "[\n";
            for (std::size_t i = 0; i < value.size(); ++i) {
                text += "  " + dump(value[i]) + (i + 1 < value.size() ? ",\n" : "\n");
            }
            text += "]";
        } else {
            text += dump(value);
        }
    }
    return text + "\n}\n";
}

} // namespace gallocsim::capture
