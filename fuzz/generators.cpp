#include "fuzz/generators.hpp"

#include <algorithm>
#include <array>
#include <ostream>

namespace gallocsim::fuzz {
namespace {

// How often each kind of step comes up; shrinking moves towards the first (leaf).
constexpr std::array<int, kStepKinds> kKindWeights{
    12,  // leaf
    14,  // unary
    12,  // binary
    6,   // inplace
    10,  // view
    6,   // reshape
    6,   // permute
    4,   // cont
    10,  // mul_mat
    3,   // get_rows
    5,   // cpy_into_view
    3,   // cast
    3,   // reduce
    3,   // concat
};

// rc::gen::inRange narrows its range when rapidcheck's size is small; choices whose odds
// should not depend on the size (which op, which flag) use the full range always.
rc::Gen<int> roll(int end) {
    return rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, end));
}

rc::Gen<std::uint8_t> bytes(int end) {
    return rc::gen::map(roll(end), [](int value) { return static_cast<std::uint8_t>(value); });
}

rc::Gen<StepKind> step_kinds() {
    int total = 0;
    for (int w : kKindWeights) {
        total += w;
    }
    return rc::gen::map(roll(total), [](int roll) {
        int kind = 0;
        while (roll >= kKindWeights[static_cast<std::size_t>(kind)]) {
            roll -= kKindWeights[static_cast<std::size_t>(kind++)];
        }
        return static_cast<StepKind>(kind);
    });
}

// True about `percent` percent of the time; shrinks to false.
rc::Gen<bool> sometimes(int percent) {
    return rc::gen::map(roll(100), [percent](int value) { return value >= 100 - percent; });
}

// An index into a dimension table whose reach grows with rapidcheck's size.
rc::Gen<std::uint8_t> dimension_index(int table_size) {
    return rc::gen::withSize([table_size](int size) {
        return bytes(1 + std::min(size, rc::kNominalSize) * (table_size - 1) / rc::kNominalSize);
    });
}

// Mostly the newest value (chains of ops), sometimes one up to 15 back.
rc::Gen<std::uint8_t> operand_choice() {
    return rc::gen::map(roll(32), [](int value) { return static_cast<std::uint8_t>(value < 16 ? 0 : value - 16); });
}

rc::Gen<Step> steps(RecipeLimits limits) {
    return rc::gen::build<Step>(
        rc::gen::set(&Step::kind, step_kinds()),
        rc::gen::set(&Step::operand, operand_choice()),
        rc::gen::set(&Step::other, operand_choice()),
        rc::gen::set(&Step::variant, bytes(255)),
        rc::gen::set(&Step::shape, rc::gen::apply([](std::uint8_t a, std::uint8_t b, std::uint8_t c) { return std::array{a, b, c}; },
                                                  dimension_index(15), dimension_index(7), dimension_index(8))),
        rc::gen::set(&Step::buffer, bytes(4)),
        rc::gen::set(&Step::output, sometimes(15)),
        rc::gen::set(&Step::external, sometimes(50)),
        rc::gen::set(&Step::input, limits.inputs_on_op_nodes ? sometimes(4) : rc::gen::just(false)),
        rc::gen::set(&Step::empty, limits.empty_tensors ? sometimes(3) : rc::gen::just(false)));
}

rc::Gen<BufferTypeRecipe> buffer_types(RecipeLimits limits) {
    return rc::gen::build<BufferTypeRecipe>(
        rc::gen::set(&BufferTypeRecipe::alignment, bytes(6)),
        // Unbounded 40% of the time, else one of the small maximum sizes.
        rc::gen::set(&BufferTypeRecipe::max_size, rc::gen::map(roll(12), [](int value) {
                         return static_cast<std::uint8_t>(value < 5 ? 0 : value - 4);
                     })),
        rc::gen::set(&BufferTypeRecipe::cuda, limits.cuda_rule ? sometimes(25) : rc::gen::just(false)));
}

} // namespace

rc::Gen<Recipe> recipes(RecipeLimits limits) {
    return rc::gen::build<Recipe>(
        rc::gen::set(&Recipe::types, rc::gen::mapcat(roll(3), [limits](int extra) {
                         return rc::gen::container<std::vector<BufferTypeRecipe>>(static_cast<std::size_t>(1 + extra), buffer_types(limits));
                     })),
        // Empty (one id per type) half the time, else up to 4 ids, some sharing a type.
        rc::gen::set(&Recipe::buffers, rc::gen::mapcat(roll(8), [](int count) {
                         return rc::gen::container<std::vector<std::uint8_t>>(static_cast<std::size_t>(std::max(0, count - 4)), bytes(3));
                     })),
        rc::gen::set(&Recipe::steps, rc::gen::container<std::vector<Step>>(steps(limits))));
}

void showValue(const Recipe& recipe, std::ostream& out) {
    out << "\n";
    describe_graph(build_graph(recipe), out);
    out << "recipe: ";
    describe(recipe, out);
}

} // namespace gallocsim::fuzz
