// Context::find (ggml_get_tensor): the first tensor with a name, searched in creation order, so
// a tensor is found under the name it has now.
#include "reference/tensor.hpp"

#include <gtest/gtest.h>

#include <initializer_list>

namespace gallocsim {
namespace {

Context named(std::initializer_list<const char*> names) {
    Context context;
    for (const char* name : names) {
        Tensor tensor;
        tensor.name = name;
        context.add(tensor);
    }
    return context;
}

// "a" is first at 0, "b" at 1: a later tensor of the same name is not the one found.
TEST(ContextFind, ANameStandsForTheFirstTensorWithIt) {
    const Context context = named({"a", "b", "a", "c", "b"});
    EXPECT_EQ(context.find("a"), &context.tensors()[0]);
    EXPECT_EQ(context.find("b"), &context.tensors()[1]);
    EXPECT_EQ(context.find("c"), &context.tensors()[3]);
    EXPECT_EQ(context.find("d"), nullptr);
    EXPECT_EQ(context.find(""), nullptr);
    EXPECT_EQ(Context().find("a"), nullptr);
}

// A tensor renamed after it was added is found under its new name and no longer under its old one.
TEST(ContextFind, ARenamedTensorIsFoundUnderItsNewName) {
    Context context = named({"x", "y", "z"});
    ASSERT_EQ(context.find("y"), &context.tensors()[1]);
    context.tensors()[1].name = "w";
    EXPECT_EQ(context.find("w"), &context.tensors()[1]);
    EXPECT_EQ(context.find("y"), nullptr);
    EXPECT_EQ(context.find("z"), &context.tensors()[2]);
    // A tensor added later with the old name is the first with it now.
    Tensor later;
    later.name = "y";
    context.add(later);
    EXPECT_EQ(context.find("y"), &context.tensors()[3]);
}

} // namespace
} // namespace gallocsim
