// NameTable (reference/name_table.hpp) and Context::find, which is built on it: names to the first
// item with each, over storage the table does not copy.
#include "reference/name_table.hpp"
#include "reference/tensor.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gallocsim {
namespace {

TEST(NameTable, ANameStandsForTheFirstItemListedWithIt) {
    const std::vector<std::string> names{"a", "b", "a", "c", "b"};
    const auto name_of = [&](std::size_t i) -> const std::string& { return names[i]; };
    NameTable table;
    std::vector<std::size_t> first;
    for (std::size_t i = 0; i < names.size(); ++i) {
        first.push_back(table.insert(names[i], i, name_of));
    }
    // Read off the list: "a" is first at 0, "b" at 1, "c" at 3.
    EXPECT_EQ(first, (std::vector<std::size_t>{0, 1, 0, 3, 1}));
    EXPECT_EQ(table.size(), 3u);
    EXPECT_EQ(table.find("a", name_of), 0u);
    EXPECT_EQ(table.find("b", name_of), 1u);
    EXPECT_EQ(table.find("c", name_of), 3u);
    EXPECT_EQ(table.find("d", name_of), NameTable::npos);
    EXPECT_EQ(table.find("", name_of), NameTable::npos);
}

TEST(NameTable, AnEmptyTableFindsNothing) {
    const NameTable table;
    EXPECT_EQ(table.find("x", [](std::size_t) { return std::string_view("x"); }), NameTable::npos);
}

// Growing moves every slot by its kept hash: after 10,000 distinct names (the table doubles from
// 16 slots ten times on the way) each is still found at its own position.
TEST(NameTable, EveryNameIsFoundAfterTheTableGrows) {
    std::vector<std::string> names;
    for (int i = 0; i < 10'000; ++i) {
        names.push_back("t" + std::to_string(i));
    }
    const auto name_of = [&](std::size_t i) -> const std::string& { return names[i]; };
    NameTable table;
    for (std::size_t i = 0; i < names.size(); ++i) {
        ASSERT_EQ(table.insert(names[i], i, name_of), i);
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
        ASSERT_EQ(table.find(names[i], name_of), i) << names[i];
    }
    EXPECT_EQ(table.find("t10000", name_of), NameTable::npos);
}

// The table keeps positions, not names: a tensor renamed after it was indexed is found under its
// new name and no longer under its old one.
TEST(ContextFind, ARenamedTensorIsFoundUnderItsNewName) {
    Context context;
    for (const char* name : {"x", "y", "z"}) {
        Tensor tensor;
        tensor.name = name;
        context.add(tensor);
    }
    ASSERT_EQ(context.find("y"), &context.tensors()[1]);  // indexes all three
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
