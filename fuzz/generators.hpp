#pragma once
// rapidcheck generators for recipes (see recipe.hpp): graphs shaped like the ones ggml
// code builds, whose size follows rapidcheck's size parameter and whose every field
// shrinks towards the simplest choice, so a failing case shrinks to a few readable steps.

#include "fuzz/recipe.hpp"

#include <rapidcheck.h>

#include <iosfwd>

namespace gallocsim::fuzz {

// What a property can do without. Each flag names a construct that some property's
// statement does not hold for exactly; the property's comment says why.
struct RecipeLimits {
    bool cuda_rule = true;           // buffer types with the cuda alloc-size rule
    bool inputs_on_op_nodes = true;  // ggml_set_input on op results
    bool empty_tensors = true;       // zero-element leafs
};

rc::Gen<Recipe> recipes(RecipeLimits limits = {});

// How rapidcheck prints a recipe in a counterexample: the graph it builds, then the recipe.
void showValue(const Recipe& recipe, std::ostream& out);

} // namespace gallocsim::fuzz
