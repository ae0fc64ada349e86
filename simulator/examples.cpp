#include "simulator/examples.hpp"

namespace gallocsim {

std::vector<ExampleInfo> list_examples() {
    return {{"seed", "the seed walkthrough: inputs a, b (1 x f32), mul = a*b, one 32-aligned CPU buffer"}};
}

GraphFile seed_example() {
    GraphFile file;
    file.name = "seed-mul";
    file.description = "two 1x1 f32 inputs, mul = a*b";
    file.buffer_types.push_back({"CPU", 32, std::nullopt, AllocSizeRule::nbytes});
    file.buffers = {0};
    auto make_input = [&](const char* name) -> Tensor& {
        Tensor t;
        t.name = name;
        t.ne = {1, 1, 1, 1};
        t.nb = contiguous_strides(t.type, t.ne);
        t.flags.set(TensorFlag::input);
        return file.context.add(std::move(t));
    };
    Tensor& a = make_input("a");
    Tensor& b = make_input("b");
    Tensor mul;
    mul.name = "mul";
    mul.ne = a.ne;
    mul.nb = a.nb;
    mul.op = Op::MUL;
    mul.src[0] = &a;
    mul.src[1] = &b;
    mul.flags.set(TensorFlag::output);
    Tensor& result = file.context.add(std::move(mul));
    file.graph.leafs = {&a, &b};
    file.graph.nodes = {&result};
    return file;
}

GraphFile make_example(const std::string& name) {
    if (name == "seed") {
        return seed_example();
    }
    throw GraphFileError("unknown example \"" + name + "\" (see `gallocsim examples`)");
}

} // namespace gallocsim
