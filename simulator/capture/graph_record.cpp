#include "simulator/capture/graph_record.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <set>
#include <stdexcept>

namespace gallocsim::capture {

namespace {

constexpr std::array<std::pair<int, const char*>, 5> kFlags{{
    {GGML_TENSOR_FLAG_INPUT, "input"}, {GGML_TENSOR_FLAG_OUTPUT, "output"}, {GGML_TENSOR_FLAG_PARAM, "param"},
    {GGML_TENSOR_FLAG_LOSS, "loss"}, {GGML_TENSOR_FLAG_COMPUTE, "compute"},
}};

// A name the format and the command line can carry: surrounding whitespace dropped, bytes
// that are not UTF-8 (a name cut at 63 bytes mid-character) replaced by '?', and never empty.
std::string usable_name(std::string name) {
    const auto first = name.find_first_not_of(" \t\r\n");
    name = first == std::string::npos ? std::string() : name.substr(first, name.find_last_not_of(" \t\r\n") - first + 1);
    try {
        (void)ojson(name).dump();
    } catch (const nlohmann::json::exception&) {
        std::ranges::replace_if(name, [](char c) { return static_cast<unsigned char>(c) >= 0x80; }, '?');
    }
    return name.empty() ? "unnamed" : name;
}

// The buffer type whose chunk list holds `buffer`, and the chunk's index.
std::optional<std::pair<ggml_backend_buffer_type_t, std::size_t>> find_chunk(const ChunkLists& chunks,
                                                                             ggml_backend_buffer_t buffer) {
    if (buffer == nullptr) {
        return std::nullopt;
    }
    for (const auto& [buft, list] : chunks) {
        const auto it = std::ranges::find(list, buffer, &Chunk::buffer);
        if (it != list.end()) {
            return std::pair{buft, static_cast<std::size_t>(it - list.begin())};
        }
    }
    return std::nullopt;
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

GraphRecord::GraphRecord(const GgmlApi& ggml, const ggml_cgraph* graph, const int* node_buffer_ids,
                         const int* leaf_buffer_ids)
    : ggml_(ggml), read_(ggml) {
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
void GraphRecord::collect(const ggml_cgraph* graph) {
    auto add = [&](const ggml_tensor* root) {
        std::vector<std::pair<const ggml_tensor*, int>> stack{{root, -1}};  // -1: view_src next
        while (!stack.empty()) {
            auto& [tensor, next] = stack.back();
            if (index_.contains(tensor)) {
                stack.pop_back();
                continue;
            }
            const ggml_tensor* dependency = nullptr;
            while (dependency == nullptr && next < static_cast<int>(read_.max_src())) {
                const ggml_tensor* candidate = next < 0 ? read_.view_src(tensor) : read_.src(tensor, static_cast<std::size_t>(next));
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
            prior_memory_.push_back(read_.data(tensor) != nullptr     ? PriorMemory::data
                                    : read_.buffer(tensor) != nullptr ? PriorMemory::buffer
                                                                      : PriorMemory::none);
            stack.pop_back();
        }
        return index_.at(root);
    };
    // The graph's layout came with the tensors'; where the program's ggml can say how many
    // nodes a graph has, it must agree.
    if (ggml_.ggml_graph_n_nodes != nullptr &&
        ggml_.ggml_graph_n_nodes(const_cast<ggml_cgraph*>(graph)) != read_.n_nodes(graph)) {
        throw std::runtime_error("the program's ggml_cgraph is not laid out as " + std::string(ggml_.layout->tree) +
                                 "'s, whose ggml_tensor it shares");
    }
    for (int i = 0; i < read_.n_leafs(graph); ++i) {
        leafs_.push_back(add(read_.leaf(graph, i)));
    }
    for (int i = 0; i < read_.n_nodes(graph); ++i) {
        nodes_.push_back(add(read_.node(graph, i)));
    }
    recorded_sizes_.assign(tensors_.size(), std::nullopt);
}

// Unique names: in the order tensors are listed, a tensor keeps its usable name if no
// earlier tensor has it, and otherwise gets "NAME#2", "NAME#3", … (the first one free).
void GraphRecord::name_tensors() {
    std::set<std::string> taken;
    for (const ggml_tensor* tensor : tensors_) {
        const std::string base = usable_name(read_.name(tensor));
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
        for (std::size_t k = 0; k < read_.max_src(); ++k) {
            if (const ggml_tensor* src = read_.src(tensors_[nodes_[i]], k)) {
                assign(index_of(src), i, node_buffer_ids_);
            }
        }
        assign(nodes_[i], i, node_buffer_ids_);
    }
    return types;
}

std::vector<int> GraphRecord::placed_types(const BufferLayout& layout, const ChunkLists& chunks) const {
    std::vector<int> types(tensors_.size(), -1);
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        if (const auto chunk = find_chunk(chunks, read_.buffer(tensors_[i]))) {
            types[i] = layout.type_index(chunk->first);
        }
    }
    return types;
}

// ggml-cuda's rule as the format defines it: quantized rows padded to 512 elements.
std::size_t GraphRecord::cuda_alloc_size(const ggml_tensor* tensor) const {
    constexpr std::int64_t kRowPadding = 512;
    std::size_t size = ggml_.ggml_nbytes(tensor);
    const ggml_type type = read_.type(tensor);
    const std::int64_t ne0 = read_.ne(tensor, 0);
    if (ggml_.ggml_is_quantized(type) && ne0 % kRowPadding != 0) {
        size += ggml_.ggml_row_size(type, kRowPadding - ne0 % kRowPadding);
    }
    return size;
}

std::vector<AllocSizeFinding> GraphRecord::alloc_size_rules(const BufferLayout& layout,
                                                             const std::vector<int>& type_of_tensor) {
    struct Evidence {
        bool nbytes = true, cuda = true;
    };
    std::vector<Evidence> evidence(layout.types.size());
    std::vector<std::size_t> sizes(tensors_.size(), 0);
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        const ggml_tensor* tensor = tensors_[i];
        if (type_of_tensor[i] < 0 || prior_memory_[i] == PriorMemory::data || read_.view_src(tensor) != nullptr) {
            continue;  // the allocator never sizes these (one in a buffer without data: states before d99724f2 do)
        }
        const auto type = static_cast<std::size_t>(type_of_tensor[i]);
        sizes[i] = ggml_.ggml_backend_buft_get_alloc_size(layout.types[type].buft, const_cast<ggml_tensor*>(tensor));
        evidence[type].nbytes = evidence[type].nbytes && sizes[i] == ggml_.ggml_nbytes(tensor);
        evidence[type].cuda = evidence[type].cuda && sizes[i] == cuda_alloc_size(tensor);
    }
    std::vector<AllocSizeFinding> findings(layout.types.size());
    for (std::size_t type = 0; type < findings.size(); ++type) {
        findings[type].rule = evidence[type].nbytes ? "nbytes" : evidence[type].cuda ? "cuda" : "recorded";
    }
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        const int type = type_of_tensor[i];
        if (type >= 0 && findings[static_cast<std::size_t>(type)].rule == "recorded" && sizes[i] != ggml_.ggml_nbytes(tensors_[i])) {
            recorded_sizes_[i] = sizes[i];
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
        const ggml_backend_buffer_t buffer = read_.buffer(tensor);
        if (prior_memory_[i] != PriorMemory::none || buffer == nullptr || read_.data(tensor) == nullptr) {
            continue;
        }
        const auto found = find_chunk(chunks, buffer);
        if (!found) {
            continue;
        }
        const int type = layout.type_index(found->first);
        if (type < 0) {
            continue;
        }
        const auto* base = static_cast<const char*>(ggml_.ggml_backend_buffer_get_base(buffer));
        entries.emplace_back(names_[i], ojson{{"buffer", layout.first_id(type)},
                                              {"chunk", found->second},
                                              {"offset", static_cast<const char*>(read_.data(tensor)) - base}});
    }
    return places;
}

ojson GraphRecord::tensor_json(std::size_t index) const {
    const ggml_tensor* t = tensors_[index];
    ojson j{{"name", names_[index]}};
    const std::string original = read_.name(t);
    if (names_[index] != original) {
        j["original_name"] = original;
    }
    const ggml_type type = read_.type(t);
    j["type"] = ggml_.ggml_type_name(type);
    std::vector<std::int64_t> ne;
    std::vector<std::size_t> nb;
    for (std::size_t d = 0; d < read_.max_dims(); ++d) {
        ne.push_back(read_.ne(t, d));
        nb.push_back(read_.nb(t, d));
    }
    while (ne.size() > 1 && ne.back() == 1) {
        ne.pop_back();
    }
    j["ne"] = ne;
    // ggml_new_tensor's strides; nb is written only when the tensor has others.
    std::vector<std::size_t> contiguous(read_.max_dims());
    contiguous[0] = ggml_.ggml_type_size(type);
    contiguous[1] = contiguous[0] * static_cast<std::size_t>(read_.ne(t, 0) / ggml_.ggml_blck_size(type));
    for (std::size_t d = 2; d < contiguous.size(); ++d) {
        contiguous[d] = contiguous[d - 1] * static_cast<std::size_t>(read_.ne(t, d - 1));
    }
    if (contiguous != nb) {
        j["nb"] = nb;
    }
    if (const ggml_op op = read_.op(t); op != GGML_OP_NONE) {
        j["op"] = ggml_.ggml_op_name(op);
    }
    std::size_t n_src = read_.max_src();
    while (n_src > 0 && read_.src(t, n_src - 1) == nullptr) {
        --n_src;
    }
    for (std::size_t k = 0; k < n_src; ++k) {
        const ggml_tensor* src = read_.src(t, k);
        j["src"].push_back(src != nullptr ? ojson(names_[index_of(src)]) : ojson(nullptr));
    }
    if (const ggml_tensor* root = read_.view_src(t)) {
        j["view_src"] = names_[index_of(root)];
        if (const std::size_t offset = read_.view_offs(t); offset != 0) {
            j["view_offs"] = offset;
        }
    }
    const std::int32_t flags = read_.flags(t);
    for (const auto& [bit, flag] : kFlags) {
        if ((flags & bit) != 0) {
            j["flags"].push_back(flag);
        }
    }
    if (prior_memory_[index] == PriorMemory::data) {
        j["data"] = true;
    } else if (prior_memory_[index] == PriorMemory::buffer) {
        j["data"] = "buffer";
    }
    if (recorded_sizes_[index]) {
        j["alloc_size"] = *recorded_sizes_[index];
    }
    return j;
}

ojson GraphRecord::graph_json(const BufferLayout& layout, const std::vector<AllocSizeFinding>& rules) const {
    const bool buffers_without_data = std::ranges::find(prior_memory_, PriorMemory::buffer) != prior_memory_.end();
    ojson doc{{"format", buffers_without_data ? "ggml-graph/2" : "ggml-graph/1"}};
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
