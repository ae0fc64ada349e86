#pragma once
// Built-in example graphs, usable without a file.

#include "simulator/graph_file.hpp"

#include <string>
#include <vector>

namespace gallocsim {

struct ExampleInfo {
    std::string name;
    std::string description;
};

std::vector<ExampleInfo> list_examples();

// The seed walkthrough's graph: inputs a and b (one f32 each), mul = a*b as output, in a
// 32-aligned CPU buffer.
GraphFile seed_example();

// nullopt-like: throws GraphFileError for an unknown name.
GraphFile make_example(const std::string& name);

} // namespace gallocsim
