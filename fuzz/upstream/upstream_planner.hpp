#pragma once
// The real upstream ggml, as pip built it from PyPI, planning a graph file: the file's
// graph rebuilt tensor by tensor in a real ggml context, planned by the real
// ggml_gallocr_new_n / reserve_n / alloc_graph over test buffer types with fake base
// addresses, and read back in the shape of a file's `expected` section.
//
// Each upstream version is compiled into its own executable against the headers of its
// own sdist and linked with its own libggml-base.so (fuzz/upstream/CMakeLists.txt), so
// this header knows no ggml type: which version it is comes from linked_version().

#include "reference/profile.hpp"
#include "simulator/model/graph_file.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gallocsim::upstream {

struct UpstreamVersion {
    std::string_view profile;  // gallocsim's profile that reproduces it (reference/profile.hpp)
    std::string_view package;  // where the library came from
};

const UpstreamVersion& linked_version();

// gallocsim's profile for the linked version (reference/profile.hpp).
const AllocatorProfile& matching_profile();

// What `expected.source` says in a file whose plan the linked version made: the profile's
// source where graph files name one, else its name and the package.
std::string plan_source();

// Whether the linked ggml has the op (by name: enum values moved between versions).
bool linked_ggml_has(Op op);

// Whether the linked ggml lets a buffer type size the tensor above its ggml_nbytes (newer
// llama.cpp asserts that only some tensors may be).
bool linked_ggml_lets_alloc_size_exceed_nbytes(const Tensor& tensor);

// The file the linked library was loaded from.
std::string library_path();

// The graph uses something the linked ggml does not know (an op or a type newer than it).
class UnsupportedGraph : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The file's graph in real ggml. Built once; plan() and plan_bare() may run many times.
class UpstreamGraph {
public:
    // Throws UnsupportedGraph.
    explicit UpstreamGraph(const GraphFile& file);
    ~UpstreamGraph();
    UpstreamGraph(const UpstreamGraph&) = delete;
    UpstreamGraph& operator=(const UpstreamGraph&) = delete;

    // A fresh gallocr, reserve_n with the file's buffer ids, alloc_graph; where every
    // tensor went, the chunk sizes the gallocr allocated through the buffer types, and
    // ggml_gallocr_get_buffer_size per buffer id. `source` is plan_source().
    PlanRecord plan();

    // The same calls with nothing read back, for the speed comparison; what they returned.
    bool plan_bare();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace gallocsim::upstream
