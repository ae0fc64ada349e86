#include "fuzz/recipe.hpp"

#include "reference/builder.hpp"

#include <algorithm>
#include <ostream>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace gallocsim::fuzz {
namespace {

// Dimension tables: small and odd sizes first, multiples of 32 (quantized rows) later.
constexpr std::array<std::int64_t, 15> kNe0{1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 32, 33, 64, 96, 128};
constexpr std::array<std::int64_t, 7> kNe1{1, 2, 3, 4, 5, 8, 16};
constexpr std::array<std::int64_t, 4> kNe2{1, 2, 3, 4};
constexpr std::array<const char*, 3> kBufferTypeNames{"CPU", "GPU", "NPU"};

template <typename T, std::size_t N>
T from(const std::array<T, N>& table, std::size_t index) {
    return table[index % N];
}

// ggml_can_repeat: b broadcasts to a.
bool can_repeat(const Tensor& b, const Tensor& a) {
    for (int i = 0; i < kMaxDims; ++i) {
        if (b.ne[i] <= 0 || a.ne[i] % b.ne[i] != 0) {
            return false;
        }
    }
    return true;
}

std::int64_t rows_of(const Tensor& t) {
    return t.ne[1] * t.ne[2] * t.ne[3];
}

class Builder {
public:
    explicit Builder(const Recipe& recipe) : recipe_(recipe) {
        add_buffers();
        for (const Step& step : recipe.steps) {
            apply(step);
        }
        expand_sinks();
        record_buffer_ids();
    }

    GraphFile take() { return std::move(file_); }

private:
    void add_buffers() {
        const std::size_t types = std::clamp<std::size_t>(recipe_.types.size(), 1, kBufferTypeNames.size());
        for (std::size_t i = 0; i < types; ++i) {
            const BufferTypeRecipe spec = i < recipe_.types.size() ? recipe_.types[i] : BufferTypeRecipe{};
            BufferTypeSpec type;
            type.name = kBufferTypeNames[i];
            type.alignment = std::size_t{4} << (spec.alignment % 6);
            if (const std::size_t max = from(kMaxSizes, spec.max_size); max != 0) {
                type.max_size = max;
            }
            type.alloc_size = spec.cuda ? AllocSizeRule::cuda : AllocSizeRule::nbytes;
            file_.buffer_types.push_back(type);
        }
        for (std::uint8_t type : recipe_.buffers) {
            file_.buffers.push_back(static_cast<int>(type % types));
        }
        if (file_.buffers.empty()) {
            for (std::size_t i = 0; i < types; ++i) {
                file_.buffers.push_back(static_cast<int>(i));
            }
        }
        file_.name = "fuzz-recipe";
    }

    void apply(const Step& step) {
        step_ = &step;
        buffer_id_ = static_cast<int>(step.buffer % file_.buffers.size());
        const std::size_t first_new = context().size();
        Tensor* result = values_.empty() || step.kind == StepKind::leaf ? &leaf() : &operation();
        // Name what the step made (leafs are named when made) and give it the step's buffer id.
        for (std::size_t i = first_new; i < context().size(); ++i) {
            Tensor& t = context().tensors()[i];
            if (t.op != Op::NONE) {
                t.name = (t.is_view() ? "v" : "t") + std::to_string(i);
            }
            buffer_ids_[&t] = buffer_id_;
        }
        if (step.input && result->op != Op::NONE) {
            set_input(*result);
        }
        if (step.output) {
            set_output(*result);
        }
        values_.push_back(result);
    }

    Context& context() { return file_.context; }

    Tensor& pick(std::uint8_t back) const {
        return *values_[values_.size() - 1 - back % values_.size()];
    }

    Shape step_shape() const {
        const auto& s = step_->shape;
        return {from(kNe0, s[0]), step_->empty ? 0 : from(kNe1, s[1]), from(kNe2, s[2]),
                static_cast<std::int64_t>(1 + s[2] / kNe2.size() % 2)};
    }

    // A new op NONE tensor named prefix + its index in the context.
    Tensor& new_leaf(DataType type, const Shape& ne, const char* prefix, bool external = false) {
        Tensor& t = builder_.new_tensor(type, ne, prefix + std::to_string(context().size()));
        if (external) {
            file_.mark_external(t);
        }
        return t;
    }

    Tensor& new_input(DataType type, const Shape& ne, const char* prefix) {
        Tensor& t = new_leaf(type, ne, prefix);
        set_input(t);
        return t;
    }

    Tensor& leaf() {
        static constexpr std::array kTypes{DataType::f32, DataType::f16, DataType::i8, DataType::i32};
        const DataType type = from(kTypes, step_->variant / 5u);
        switch (step_->variant % 5) {
        case 0: return new_leaf(type, step_shape(), "c", step_->external);
        case 1: return new_input(type, step_shape(), "x");
        case 2: return new_leaf(type, step_shape(), "w", step_->external);
        case 3: return new_input(DataType::f32, step_shape(), "x");
        default: {
            // A trainable parameter: op NONE, but ggml_build_forward_expand puts it among the nodes.
            Tensor& t = new_leaf(type, step_shape(), "g", step_->external);
            t.flags.set(TensorFlag::param);
            return t;
        }
        }
    }

    Tensor& operation() {
        Tensor& a = pick(step_->operand);
        switch (step_->kind) {
        case StepKind::leaf: break;
        case StepKind::unary: return unary(a);
        case StepKind::binary: return builder_.binary(from(kBinaryOps, step_->variant), a, second_operand(a));
        case StepKind::inplace: return inplace(a);
        case StepKind::view: return view(a);
        case StepKind::reshape: return reshape(a);
        case StepKind::permute: return permute(a);
        case StepKind::cont: return builder_.cont(a);
        case StepKind::mul_mat: return mul_mat(a);
        case StepKind::get_rows: return get_rows();
        case StepKind::cpy_into_view: return cpy_into_view(a);
        case StepKind::cast: return cast(a);
        case StepKind::reduce: return step_->variant % 2 == 0 ? builder_.sum_rows(a) : builder_.mean(a);
        case StepKind::concat: return concat(a);
        }
        return leaf();
    }

    static constexpr std::array kBinaryOps{Op::ADD, Op::MUL, Op::SUB, Op::DIV};

    // The other operand of an element-wise op: an earlier value that broadcasts to `a`
    // (possibly `a` itself: x op x), else a new bias-like row or a same-shaped input.
    Tensor& second_operand(Tensor& a) {
        Tensor& b = pick(step_->other);
        if (can_repeat(b, a)) {
            return b;
        }
        if (step_->variant / 4 % 2 == 0) {
            return new_leaf(a.type, {a.ne[0], 1, 1, 1}, "w", step_->external);
        }
        return new_input(a.type, a.ne, "x");
    }

    Tensor& unary(Tensor& a) {
        switch (step_->variant % 11) {
        case 0: return builder_.unary_op(Op::SQR, a);
        case 1: return builder_.unary_op(Op::SQRT, a);
        case 2: return builder_.unary_op(Op::LOG, a);
        case 3: return builder_.unary(a, UnaryOp::SILU);
        case 4: return builder_.unary(a, UnaryOp::GELU);
        case 5: return builder_.scale(a, 0.125f);
        case 6: return builder_.rms_norm(a);
        case 7: return builder_.soft_max(a);
        case 8: return builder_.soft_max(a, &new_input(DataType::f32, {a.ne[0], a.ne[1], 1, 1}, "m"));
        case 9:
            // RoPE rotates pairs of elements: rows of odd length get an RMS_NORM instead.
            if (a.ne[0] % 2 != 0) {
                return builder_.rms_norm(a);
            }
            return builder_.rope(a, new_input(DataType::i32, {a.ne[2], 1, 1, 1}, "p"));
        default: return builder_.fill(a, 1.0f);
        }
    }

    Tensor& inplace(Tensor& a) {
        static constexpr std::array kUnaryOps{Op::SQR, Op::SQRT, Op::LOG, Op::SCALE, Op::SOFT_MAX, Op::RMS_NORM};
        if (step_->variant % 2 == 0) {
            return builder_.binary_inplace(from(kBinaryOps, step_->variant / 2u), a, second_operand(a));
        }
        return builder_.unary_inplace(from(kUnaryOps, step_->variant / 2u), a);
    }

    // Views of a contiguous tensor (a non-contiguous one is viewed through its root),
    // always inside it: ggml_view_* asserts that.
    Tensor& view(Tensor& operand) {
        Tensor& a = is_contiguous(operand) ? operand : *operand.view_src;
        const std::int64_t n0 = a.ne[0];
        const std::int64_t rows = rows_of(a);
        if (n0 == 0 || rows == 0) {
            return builder_.view_1d(a, 0, 0);
        }
        const std::size_t ts = type_size(a.type);
        const std::size_t rb = a.nb[1];
        const auto choose = [](std::uint8_t choice, std::int64_t count) { return static_cast<std::int64_t>(choice % count); };
        const auto bytes = [](std::int64_t n, std::size_t unit) { return static_cast<std::size_t>(n) * unit; };
        switch (step_->variant % 5) {
        case 0: {  // rows s .. s+r-1
            const std::int64_t r = 1 + choose(step_->other, rows);
            const std::int64_t s = choose(step_->shape[0], rows - r + 1);
            return builder_.view(a, {n0, r, 1, 1}, {rb, bytes(r, rb), bytes(r, rb)}, bytes(s, rb));
        }
        case 1: {  // columns c .. c+w-1 of every row: not contiguous
            const std::int64_t c = choose(step_->other, n0);
            const std::int64_t w = 1 + choose(step_->shape[0], n0 - c);
            return builder_.view(a, {w, rows, 1, 1}, {rb, bytes(rows, rb), bytes(rows, rb)}, bytes(c, ts));
        }
        case 2: {  // every other row
            const std::int64_t r = (rows + 1) / 2;
            return builder_.view(a, {n0, r, 1, 1}, {2 * rb, bytes(r, 2 * rb), bytes(r, 2 * rb)}, 0);
        }
        case 3: {  // a slice of the elements, at any element offset
            const std::int64_t elements = n0 * rows;
            const std::int64_t length = 1 + choose(step_->other, elements);
            const std::int64_t start = choose(step_->shape[0], elements - length + 1);
            return builder_.view_1d(a, length, bytes(start, ts));
        }
        default: {  // some of the heads (dimension 2), as attention code slices them
            const std::int64_t heads = a.ne[2];
            const std::int64_t h = 1 + choose(step_->other, heads);
            const std::int64_t start = choose(step_->shape[0], heads - h + 1);
            return builder_.view(a, {n0, a.ne[1], h, 1}, {rb, a.nb[2], bytes(h, a.nb[2])}, bytes(start, a.nb[2]));
        }
        }
    }

    Tensor& reshape(Tensor& operand) {
        Tensor& a = is_contiguous(operand) ? operand : builder_.cont(operand);
        const auto& ne = a.ne;
        switch (step_->variant % 4) {
        case 0: return builder_.reshape(a, {element_count(a), 1, 1, 1});
        case 1: return builder_.reshape(a, {ne[0], rows_of(a), 1, 1});
        case 2: {  // split ne[0] into heads, as q is reshaped to [head_dim, n_head, n_tokens]
            const std::int64_t d = std::int64_t{2} << (step_->other % 3);
            if (ne[0] % d == 0) {
                return builder_.reshape(a, {d, ne[0] / d, ne[1], ne[2] * ne[3]});
            }
            return builder_.reshape(a, {ne[0], ne[1], ne[2] * ne[3], 1});
        }
        default: return builder_.reshape(a, {ne[0], ne[1] * ne[2], ne[3], 1});
        }
    }

    Tensor& permute(Tensor& a) {
        static constexpr std::array<std::array<int, 4>, 4> kAxes{{{0, 2, 1, 3}, {1, 2, 0, 3}, {2, 0, 1, 3}, {0, 1, 3, 2}}};
        if (step_->variant % 5 == 0) {
            return builder_.transpose(a);
        }
        const auto& axes = kAxes[(step_->variant % 5) - 1u];
        return builder_.permute(a, axes[0], axes[1], axes[2], axes[3]);
    }

    // ggml_mul_mat(w, a): [K, N] x [K, M, ...] -> [N, M, ...] f32. Quantized weights need
    // K to be a multiple of their block size.
    Tensor& mul_mat(Tensor& a) {
        Tensor& t0 = pick(step_->other);
        const bool activations = step_->variant % 2 == 1 && t0.ne[0] == a.ne[0] && t0.ne[2] > 0 && t0.ne[3] > 0 &&
                                 a.ne[2] % t0.ne[2] == 0 && a.ne[3] % t0.ne[3] == 0 && t0.nb[0] <= t0.nb[1];
        if (activations) {
            return builder_.mul_mat(t0, a);
        }
        static constexpr std::array kQuantizable{DataType::f16, DataType::q8_0, DataType::q4_0, DataType::f32};
        static constexpr std::array kPlain{DataType::f32, DataType::f16};
        const std::int64_t k = a.ne[0];
        const DataType type = k % 32 == 0 ? from(kQuantizable, step_->variant / 2u) : from(kPlain, step_->variant / 2u);
        Tensor& w = new_leaf(type, {k, from(kNe0, step_->shape[0]), 1, 1}, "w", step_->external);
        return builder_.mul_mat(w, a);
    }

    // ggml_get_rows(embeddings, token ids): the start of every transformer.
    Tensor& get_rows() {
        static constexpr std::array kQuantizable{DataType::f32, DataType::f16, DataType::q8_0, DataType::q4_0};
        static constexpr std::array kPlain{DataType::f32, DataType::f16};
        const std::int64_t dim = from(kNe0, step_->shape[0]);
        const DataType type = dim % 32 == 0 ? from(kQuantizable, step_->variant) : from(kPlain, step_->variant);
        Tensor& table = new_leaf(type, {dim, 3 + from(kNe1, step_->shape[1]), 1, 1}, "w", step_->external);
        Tensor& rows = new_input(DataType::i32, {from(kNe1, step_->shape[2]), 1, 1, 1}, "p");
        return builder_.get_rows(table, rows);
    }

    // A KV-cache write: ggml_cpy into a 1-d view of one slot of the cache, or
    // ggml_set_rows into it. Later steps may read the cache through views.
    Tensor& cpy_into_view(Tensor& a) {
        const DataType type = step_->variant / 2 % 2 == 0 ? DataType::f32 : DataType::f16;
        const std::int64_t slots = 1 + step_->other % 4;
        Tensor* result = nullptr;
        Tensor* cache = nullptr;
        // ggml_set_rows writes rows of a matrix: a batch of them (ne[2], ne[3] > 1) is copied.
        if (step_->variant % 2 == 0 || a.ne[2] * a.ne[3] != 1) {
            const std::int64_t n = element_count(a);
            cache = &new_leaf(type, {n, slots, 1, 1}, "kv", step_->external);
            const std::int64_t slot = step_->shape[0] % slots;
            result = &builder_.cpy(a, builder_.view_1d(*cache, n, row_size(type, n) * static_cast<std::size_t>(slot)));
        } else {
            cache = &new_leaf(type, {a.ne[0], a.ne[1] * slots, 1, 1}, "kv", step_->external);
            Tensor& ids = new_input(DataType::i64, {a.ne[1], 1, 1, 1}, "p");
            result = &builder_.set_rows(*cache, a, ids);
        }
        values_.push_back(cache);
        return *result;
    }

    Tensor& cast(Tensor& a) {
        static constexpr std::array kTypes{DataType::f16, DataType::f32, DataType::bf16, DataType::i8, DataType::i16};
        return builder_.cast(a, from(kTypes, step_->variant));
    }

    Tensor& concat(Tensor& a) {
        const int dim = step_->variant % 2;
        Tensor& b = pick(step_->other);
        bool fits = b.type == a.type;
        for (int i = 0; i < kMaxDims; ++i) {
            fits = fits && (i == dim || b.ne[i] == a.ne[i]);
        }
        return builder_.concat(a, fits ? b : new_input(a.type, a.ne, "x"), dim);
    }

    // ggml code expands the graph from its results; here, from every tensor nothing else
    // reads, in creation order, so that every tensor made is in the graph.
    void expand_sinks() {
        std::unordered_set<const Tensor*> read;
        for (const Tensor& t : context().tensors()) {
            for (const Tensor* src : t.src) {
                if (src != nullptr && src != &t) {
                    read.insert(src);
                }
            }
        }
        for (Tensor& t : context().tensors()) {
            if (!read.contains(&t)) {
                build_forward_expand(file_.graph, t);
            }
        }
    }

    void record_buffer_ids() {
        if (file_.buffer_count() == 1) {
            return;  // all 0: the files' default
        }
        for (const Tensor* t : file_.graph.leafs) {
            file_.leaf_buffer_ids.push_back(buffer_ids_.at(t));
        }
        for (const Tensor* t : file_.graph.nodes) {
            file_.node_buffer_ids.push_back(buffer_ids_.at(t));
        }
    }

    const Recipe& recipe_;
    GraphFile file_;
    GraphBuilder builder_{file_.context};
    const Step* step_ = nullptr;
    int buffer_id_ = 0;
    std::vector<Tensor*> values_;
    std::unordered_map<const Tensor*, int> buffer_ids_;
};

// Reads bytes in order; past the end every byte is 0 (the simplest choice).
class ByteReader {
public:
    explicit ByteReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
    std::uint8_t next() { return at_ < bytes_.size() ? bytes_[at_++] : 0; }
    bool done() const { return at_ >= bytes_.size(); }

private:
    std::span<const std::uint8_t> bytes_;
    std::size_t at_ = 0;
};

} // namespace

GraphFile build_graph(const Recipe& recipe) {
    return Builder(recipe).take();
}

Recipe decode_recipe(std::span<const std::uint8_t> bytes) {
    constexpr std::size_t kMaxSteps = 256;
    ByteReader in(bytes);
    Recipe recipe;
    const int types = 1 + in.next() % 3;
    for (int i = 0; i < types; ++i) {
        const std::uint8_t alignment = in.next();
        const std::uint8_t max_size = in.next();
        recipe.types.push_back({alignment, static_cast<std::uint8_t>(max_size & 0x7f), (max_size & 0x80) != 0});
    }
    const int buffers = in.next() % 5;
    for (int i = 0; i < buffers; ++i) {
        recipe.buffers.push_back(in.next());
    }
    while (!in.done() && recipe.steps.size() < kMaxSteps) {
        Step step;
        step.kind = static_cast<StepKind>(in.next() % kStepKinds);
        step.operand = in.next();
        step.other = in.next();
        step.variant = in.next();
        step.shape = {in.next(), in.next(), in.next()};
        step.buffer = in.next();
        const std::uint8_t flags = in.next();
        step.output = (flags & 1) != 0;
        step.external = (flags & 2) != 0;
        step.input = (flags & 4) != 0;
        step.empty = (flags & 8) != 0;
        recipe.steps.push_back(step);
    }
    return recipe;
}

std::string_view step_kind_name(StepKind kind) {
    static constexpr std::array<std::string_view, kStepKinds> kNames{
        "leaf", "unary", "binary", "inplace", "view", "reshape", "permute",
        "cont", "mul_mat", "get_rows", "cpy_into_view", "cast", "reduce", "concat"};
    return kNames[static_cast<std::size_t>(kind)];
}

void describe(const Recipe& recipe, std::ostream& out) {
    for (const BufferTypeRecipe& type : recipe.types) {
        out << "type{alignment " << int{type.alignment} << ", max_size " << int{type.max_size}
            << (type.cuda ? ", cuda" : "") << "} ";
    }
    out << "buffers{";
    for (std::uint8_t b : recipe.buffers) {
        out << " " << int{b};
    }
    out << " }\n";
    for (const Step& s : recipe.steps) {
        out << "  " << step_kind_name(s.kind) << "(operand " << int{s.operand} << ", other " << int{s.other}
            << ", variant " << int{s.variant} << ", shape " << int{s.shape[0]} << "/" << int{s.shape[1]} << "/"
            << int{s.shape[2]} << ", buffer " << int{s.buffer} << ")" << (s.output ? " output" : "")
            << (s.external ? " external" : "") << (s.input ? " input" : "") << (s.empty ? " empty" : "") << "\n";
    }
}

void describe_graph(const GraphFile& file, std::ostream& out) {
    for (std::size_t i = 0; i < file.buffer_types.size(); ++i) {
        const BufferTypeSpec& t = file.buffer_types[i];
        out << "buffer type " << t.name << ": alignment " << t.alignment;
        if (t.max_size) {
            out << ", max_size " << *t.max_size;
        }
        out << (t.alloc_size == AllocSizeRule::cuda ? ", cuda alloc size" : "") << "\n";
    }
    out << "buffer ids:";
    for (int type : file.buffers) {
        out << " " << file.buffer_types[static_cast<std::size_t>(type)].name;
    }
    out << "\n";
    std::unordered_map<const Tensor*, std::string> place;
    auto note = [&](const std::vector<Tensor*>& list, const std::vector<int>& ids, const char* what) {
        for (std::size_t i = 0; i < list.size(); ++i) {
            place[list[i]] = std::string(what) + " " + std::to_string(i) + ", buffer " + std::to_string(ids.empty() ? 0 : ids[i]);
        }
    };
    note(file.graph.leafs, file.leaf_buffer_ids, "leaf");
    note(file.graph.nodes, file.node_buffer_ids, "node");
    for (const Tensor& t : file.context.tensors()) {
        out << "  " << t.name;
        if (t.op != Op::NONE) {
            out << " = " << op_name(t.op) << "(";
            for (int k = 0, shown = 0; k < kMaxSrc; ++k) {
                if (t.src[static_cast<std::size_t>(k)] != nullptr) {
                    out << (shown++ ? ", " : "") << t.src[static_cast<std::size_t>(k)]->name;
                }
            }
            out << ")";
        }
        out << "  " << type_name(t.type) << " [" << t.ne[0] << ", " << t.ne[1] << ", " << t.ne[2] << ", " << t.ne[3]
            << "] " << nbytes(t) << " B";
        if (!is_contiguous(t)) {
            out << " nb [" << t.nb[0] << ", " << t.nb[1] << ", " << t.nb[2] << ", " << t.nb[3] << "]";
        }
        if (t.view_src != nullptr) {
            out << "  view of " << t.view_src->name << " + " << t.view_offs;
        }
        for (const auto& [flag, name] : kFlagNames) {
            if (flag != TensorFlag::compute && t.has_flag(flag)) {
                out << "  " << name;
            }
        }
        if (file.is_external(t)) {
            out << "  external";
        }
        if (auto it = place.find(&t); it != place.end()) {
            out << "  (" << it->second << ")";
        }
        out << "\n";
    }
}

} // namespace gallocsim::fuzz
