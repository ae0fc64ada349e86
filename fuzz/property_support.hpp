#pragma once
// What the property tests share: generating a graph (with the JSON saved if the case
// fails), asserting that a checker found nothing, and telling the one expected planning
// failure from real ones.

#include "fuzz/generators.hpp"
#include "simulator/model/plan.hpp"

#include <rapidcheck.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gallocsim::fuzz {

struct Generated {
    GraphFile file;
    std::string json;  // what keeping_counterexample saves
};

Generated generate(RecipeLimits limits = {});

// "\n  line" for each line.
std::string joined(const std::vector<std::string>& lines);

// Asserts that a list of problems is empty, and shows them when it is not.
#define RC_ASSERT_NONE(problems)                                                 \
    do {                                                                         \
        const auto found_ = (problems);                                          \
        if (!found_.empty()) {                                                   \
            RC_FAIL(#problems " found:" + ::gallocsim::fuzz::joined(found_));    \
        }                                                                        \
    } while (false)

bool has_empty_chunk(const GraphAllocator& allocator);

// Generated graphs always plan, bar one case: a chunk holding only zero-byte tensors gets
// a zero-size buffer with no base address, where upstream aborts in alloc_graph
// (docs/divergences.md) and gallocsim returns false. Returns whether the graph was
// planned; asserts that any failure is that one.
bool planned(const PlanRun& run);

// The buffer types of a file as GraphAllocator takes them: one per buffer id.
std::vector<BufferType*> buffer_ids(const GraphFile& file, const std::vector<std::unique_ptr<ConfigurableBufferType>>& types);

// The corpora the named property tests go through, each graph with the rules that planned it
// for real: every golden file by its `expected.source` (the newest state for one without), and
// every graph of every committed capture once, by what its program's ggml reported.
using CorpusVisit = std::function<void(const std::string& subject, const GraphFile& file, const AllocatorProfile& profile)>;
std::filesystem::path golden_corpus();  // ../shared/golden; a test skips when it is missing
void for_each_golden_graph(const CorpusVisit& visit);
void for_each_captured_graph(const CorpusVisit& visit);

} // namespace gallocsim::fuzz
