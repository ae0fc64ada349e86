#pragma once
// Independent checks of graph memory plans, sharing no code with the allocator: it reads the
// graph and the addresses alloc_graph gave, works out from the graph alone when each
// tensor holds memory under ggml's rules, and lists every pair of tensors that share a
// byte while both hold memory, every input overwritten before its last use, every output
// overwritten, and every address out of bounds or misaligned. Each check returns what is
// wrong, one sentence per problem (empty: nothing wrong).

#include "reference/graph_allocator.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/working_graph.hpp"

#include <climits>
#include <string>
#include <unordered_map>
#include <vector>

namespace gallocsim::fuzz {

// Time is counted in steps: step 0 is before any node runs (leafs and inputs get their
// memory then); node i runs at step i + 1.
inline constexpr int kNever = INT_MAX;

struct Lifetime {
    int birth = 0;         // when the tensor is given memory
    int death = kNever;    // the step whose end releases it (kNever: held to the end)
    int last_use = 0;      // the last step that reads it, directly or through a view
};

// ggml's lifetime rule, from the graph: a tensor is released when its last consumer has
// run and every view of it has been released (a view is released by its own last
// consumer). Outputs are never released; so is a tensor nothing consumes, and a tensor
// with a view that nothing consumes. Only tensors the allocator places have a lifetime:
// in the graph, not views, not external.
class Lifetimes {
public:
    explicit Lifetimes(const Graph& graph);
    const Lifetime* find(const Tensor& tensor) const;
    const Lifetime& at(const Tensor& tensor) const;

private:
    std::unordered_map<const Tensor*, Lifetime> lifetimes_;
};

// Has the tensor memory from outside the allocator? ggml's own test: it has data but no
// buffer (a working copy gives a file's `data: true` tensors such an address). Only true
// of tensors of a graph being planned: a graph file's own tensors have no addresses.
bool has_outside_memory(const Tensor& tensor);

// ggml_op_can_inplace as the newest ggml gallocsim knows has it (llama.cpp 0c1e570's
// ggml-alloc.c), written here apart from reference/profile.cpp: a wrong op set in the
// product would otherwise pass these checks. A test holds the newest profile to it.
bool may_run_in_place(Op op);

// Does the allocator place this tensor itself (not a view, no memory from outside)?
bool placed_by_allocator(const Tensor& tensor);

// The bytes alloc_graph gave a tensor, in one backend buffer.
struct PlacedBytes {
    const Tensor* tensor = nullptr;
    const Buffer* buffer = nullptr;
    std::size_t offset = 0;
    std::size_t size = 0;  // the buffer type's alloc size (unaligned)
    bool overlaps(const PlacedBytes& other) const;
};

// Every tensor of the graph that the allocator placed, in graph order (leafs, then nodes).
std::vector<PlacedBytes> placed_tensors(const Graph& graph);

// Property 1: no two tensors that hold memory at the same step share a byte, except an
// in-place child with the parent whose memory it took over at the parent's last step.
std::vector<std::string> overlap_violations(const Graph& graph, const Lifetimes& lifetimes);

// Property 3: nothing takes an input's bytes before its last use (bar an in-place child
// at that use), and nothing takes an output's bytes after the output is made, nor holds
// them while it is made (bar the in-place parent it replaces).
std::vector<std::string> input_violations(const Graph& graph, const Lifetimes& lifetimes);
std::vector<std::string> output_violations(const Graph& graph, const Lifetimes& lifetimes);

// Property 2: every placed tensor aligned and inside its chunk, views at their root's
// address plus their offset, external tensors untouched, every chunk exactly as large as
// its high-water mark and no larger than max_size unless one tensor in it needs more (or
// it is the 16th chunk, which upstream makes unbounded). Buffers kept from an earlier,
// larger plan may be larger than the high-water mark (never smaller), and may have
// chunks the plan no longer uses.
enum class BufferHistory { fresh, kept_from_earlier_plan };
// `planned`: the working copy of `file` the allocator planned.
std::vector<std::string> bounds_violations(const GraphFile& file, const Graph& planned, const GraphAllocator& allocator,
                                           BufferHistory history = BufferHistory::fresh);

} // namespace gallocsim::fuzz
