// TensorMap: planning records laid out by Tensor::index. A graph from one context never
// hashes; tensors whose index slot is taken (a second context, no context at all) must
// still get records of their own, and references must survive the room made for a step.
#include "reference/tensor_map.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace gallocsim {
namespace {

Tensor& add(Context& context, std::string name) {
    Tensor tensor;
    tensor.name = std::move(name);
    return context.add(std::move(tensor));
}

TEST(TensorMap, TensorsOfTwoContextsWithTheSameIndexKeepTheirOwnValues) {
    Context first, second;
    Tensor& a = add(first, "a");    // index 0
    Tensor& b = add(first, "b");    // index 1
    Tensor& c = add(second, "c");   // index 0 too
    Tensor& d = add(second, "d");   // index 1 too
    TensorMap<int> map;
    map.reset(2, 0);
    map[&a] = 1;
    map[&b] = 2;
    map[&c] = 3;
    map[&d] = 4;
    EXPECT_EQ(map[&a], 1);
    EXPECT_EQ(map[&b], 2);
    EXPECT_EQ(*map.find(&c), 3);
    EXPECT_EQ(*map.find(&d), 4);
    EXPECT_EQ(map.size(), 4u);
}

TEST(TensorMap, TensorsOutsideAnyContextAndPastTheTableAreKeptToo) {
    std::vector<Tensor> loose(40);  // all index 0, as made outside a context
    TensorMap<int> map;
    map.reset(4, 0);
    map.make_room(loose.size());
    for (int i = 0; i < static_cast<int>(loose.size()); ++i) {
        map[&loose[static_cast<std::size_t>(i)]] = i;
    }
    Context context;
    Tensor* far = nullptr;
    for (int i = 0; i < 10; ++i) {
        far = &add(context, "t" + std::to_string(i));  // the last has index 9, past the 4 slots
    }
    map[far] = 99;
    for (int i = 0; i < static_cast<int>(loose.size()); ++i) {
        EXPECT_EQ(*map.find(&loose[static_cast<std::size_t>(i)]), i);
    }
    EXPECT_EQ(*map.find(far), 99);
    EXPECT_EQ(map.size(), 41u);
}

TEST(TensorMap, ReferencesSurviveAddingAsManyTensorsAsRoomWasMadeFor) {
    std::vector<Tensor> loose(64);  // all index 0: one slot by index, the rest overflow
    TensorMap<int> map;
    map.reset(1, 0);
    map.make_room(loose.size());
    int& by_index = map[&loose[0]];
    int& overflowed = map[&loose[1]];
    for (std::size_t i = 2; i < loose.size(); ++i) {
        map[&loose[i]] = static_cast<int>(i);
    }
    by_index = 7;
    overflowed = 8;
    EXPECT_EQ(*map.find(&loose[0]), 7);
    EXPECT_EQ(*map.find(&loose[1]), 8);
    EXPECT_EQ(*map.find(&loose[63]), 63);
}

TEST(TensorMap, ResetForgetsEveryTensor) {
    Context context;
    Tensor& a = add(context, "a");
    std::vector<Tensor> loose(2);
    TensorMap<int> map;
    map.reset(1, 0);
    map[&a] = 5;
    map[&loose[1]] = 6;  // index 0 taken by a: overflow
    map.reset(1, 0);
    EXPECT_EQ(map.find(&a), nullptr);
    EXPECT_EQ(map.find(&loose[1]), nullptr);
    EXPECT_EQ(map.size(), 0u);
    EXPECT_EQ(map[&a], 0);  // default-constructed again
}

TEST(TensorMap, UnknownTensorIsNotFound) {
    Context context;
    Tensor& a = add(context, "a");
    Tensor& b = add(context, "b");
    TensorMap<int> map;
    map.reset(2, 0);
    map[&a] = 1;
    EXPECT_EQ(map.find(&b), nullptr);
}

} // namespace
} // namespace gallocsim
