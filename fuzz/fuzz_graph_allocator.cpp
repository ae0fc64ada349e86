// libFuzzer harness (c): the graph allocator's calls (reserve_n, reserve_n_size,
// alloc_graph, re-planning after a tensor grows) in any order, on a graph built from a
// recipe, with buffer types that fail allocations (BufferTypeSettings failure injection).
// Never a crash, a leak or an exception; a false return always says why; buffers held
// match the chunks the allocator reports; whatever succeeds is sound (addresses in
// bounds, and no overlap where the independent lifetimes apply); and once failures stop, a
// reserve gives exactly the plan a fresh allocator gives.
#include "fuzz/harness.hpp"
#include "fuzz/independent_checks.hpp"
#include "fuzz/recipe.hpp"
#include "simulator/model/plan.hpp"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

using namespace gallocsim;
using namespace gallocsim::fuzz;

namespace {

// How the reference ends the message of an error where upstream would abort.
constexpr std::string_view kUpstreamAborts = "(upstream aborts here)";

BufferTypeSettings failing(BufferTypeSettings settings, FuzzedDataProvider& in) {
    if (in.ConsumeBool()) {
        settings.fail_at_allocation = in.ConsumeIntegralInRange<std::size_t>(0, 8);
        settings.fail_from_then_on = in.ConsumeBool();
    }
    if (in.ConsumeBool()) {
        settings.fail_above = in.ConsumeIntegralInRange<std::size_t>(0, 4096);
    }
    return settings;
}

// The lifetime oracle does not apply to input flags on op nodes (an upstream bug, see
// UpstreamQuirks.InputFlaggedOpNodeCanPutALeafOverAnotherLeaf).
bool independent_lifetimes_apply(const Graph& graph) {
    return std::ranges::none_of(graph.nodes, [](const Tensor* t) { return t->has_flag(TensorFlag::input); });
}

class Session {
public:
    Session(GraphFile& file, FuzzedDataProvider& in) : file_(file), planned_(working_copy(file)) {
        types_ = make_buffer_types(file);
        for (auto& type : types_) {
            type->set_settings(failing(type->settings(), in));
        }
        std::vector<BufferType*> ids;
        for (int type : file.buffers) {
            ids.push_back(types_[static_cast<std::size_t>(type)].get());
        }
        allocator_ = std::make_unique<GraphAllocator>(ids);
    }

    ~Session() {
        allocator_.reset();
        for (const auto& type : types_) {
            require(type->live_buffers() == 0, "a buffer outlived the allocator");
        }
    }

    void reserve() {
        const bool ok = allocator_->reserve_n(planned_.graph, planned_.node_buffer_ids, planned_.leaf_buffer_ids);
        after_call(ok, "reserve_n");
    }

    void reserve_size() {
        const auto sizes = allocator_->reserve_n_size(planned_.graph, planned_.node_buffer_ids, planned_.leaf_buffer_ids);
        require(sizes.has_value() || !allocator_->last_error().empty(), "reserve_n_size failed without saying why");
        require(!sizes || sizes->size() == static_cast<std::size_t>(allocator_->buffer_count()), "one size per buffer id");
        check_buffers();
    }

    void alloc_graph() {
        planned_.forget_addresses();  // a program builds its graph afresh for each call
        const bool ok = allocator_->alloc_graph(planned_.graph);
        after_call(ok, "alloc_graph");
        if (ok) {
            require_none(bounds_violations(file_, planned_.graph, *allocator_, BufferHistory::kept_from_earlier_plan),
                         "addresses after alloc_graph");
            if (independent_lifetimes_apply(planned_.graph)) {
                require_none(overlap_violations(planned_.graph, Lifetimes(planned_.graph)), "overlaps after alloc_graph");
            }
        }
    }

    // A node grows by one slice of its last dimension, in the file too (the fresh plan
    // compare_with_fresh makes is of the file).
    void grow(std::size_t pick) {
        std::vector<Tensor*> growable;
        for (Tensor* node : planned_.graph.nodes) {
            if (placed_by_allocator(*node) && nbytes(*node) > 0) {
                growable.push_back(node);
            }
        }
        if (!growable.empty()) {
            Tensor& grown = *growable[pick % growable.size()];
            grown.ne[3] += 1;
            file_.context.tensors()[grown.index].ne[3] += 1;
        }
    }

    void stop_failures() {
        for (auto& type : types_) {
            BufferTypeSettings settings = type->settings();
            settings.fail_at_allocation.reset();
            settings.fail_above.reset();
            type->set_settings(settings);
        }
    }

    // With no failures left, a reserve must give what a fresh allocator gives: a failure
    // may leave no trace in the plan.
    void compare_with_fresh() {
        stop_failures();
        planned_.forget_addresses();
        const bool reserved = allocator_->reserve_n(planned_.graph, planned_.node_buffer_ids, planned_.leaf_buffer_ids);
        const bool allocated = reserved && allocator_->alloc_graph(planned_.graph);
        const PlanRecord mine = record_plan(planned_, *allocator_, reserved, allocated);
        const PlanRun fresh = run_plan(file_);
        const bool mine_aborts = !allocated && allocator_->last_error().ends_with(kUpstreamAborts);
        if (fresh.error.ends_with(kUpstreamAborts) || mine_aborts) {
            // Where either allocator meets what upstream aborts on, there is no plan to
            // compare with. Both found by this harness, both about buffers kept from an
            // earlier plan (buffers never shrink, in upstream too), not a failure's trace:
            // - a fresh allocator's zero-size buffer gives a zero-byte tensor no address, and
            //   a second initialisation of it is upstream's abort; a kept larger buffer gives
            //   it an address;
            // - a kept buffer lacks a new last chunk that holds only zero bytes (no chunk grew,
            //   so it was not reallocated: KeptBuffer.LacksANewChunkOfZeroBytes); a fresh
            //   allocator allocates that chunk.
            check_buffers();
            return;
        }
        // Buffers kept from a larger earlier plan may be larger; placements must match.
        require(mine.reserve == fresh.plan.reserve && mine.alloc_graph == fresh.plan.alloc_graph,
                "a failure changed whether the graph can be planned");
        require(mine.tensors == fresh.plan.tensors, "a failure earlier changed where tensors go");
        check_buffers();
    }

private:
    void after_call(bool ok, const char* call) {
        require(ok || !allocator_->last_error().empty(), std::string(call) + " failed without saying why");
        check_buffers();
    }

    // Every live test buffer is a chunk the allocator reports (zero-size chunks have none).
    void check_buffers() const {
        std::size_t live = 0;
        for (const auto& type : types_) {
            live += type->live_buffers();
        }
        std::size_t chunks = 0;
        for (int id = 0; id < allocator_->buffer_count(); ++id) {
            const auto sizes = allocator_->chunk_sizes(id);
            chunks += static_cast<std::size_t>(std::ranges::count_if(sizes, [](std::size_t s) { return s > 0; }));
        }
        require(live == chunks, "buffers held (" + std::to_string(live) + ") differ from the chunks reported (" +
                                    std::to_string(chunks) + ")");
    }

    GraphFile& file_;
    WorkingGraph planned_;  // what the calls plan; the allocator points into it
    std::vector<std::unique_ptr<ConfigurableBufferType>> types_;
    std::unique_ptr<GraphAllocator> allocator_;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    const std::size_t calls = in.ConsumeIntegralInRange<std::size_t>(1, 8);
    std::vector<std::uint8_t> script = in.ConsumeBytes<std::uint8_t>(calls);
    GraphFile file;
    {
        // The failure settings come first, the recipe takes the rest.
        const std::size_t settings_bytes = std::min<std::size_t>(in.remaining_bytes(), 24);
        std::vector<std::uint8_t> settings = in.ConsumeBytes<std::uint8_t>(settings_bytes);
        const std::vector<std::uint8_t> recipe = in.ConsumeRemainingBytes<std::uint8_t>();
        file = build_graph(decode_recipe(recipe));
        FuzzedDataProvider settings_in(settings.data(), settings.size());
        Session session(file, settings_in);
        for (std::uint8_t call : script) {
            switch (call % 6) {
            case 0: case 1: session.reserve(); break;
            case 2: session.alloc_graph(); break;
            case 3: session.reserve_size(); break;
            case 4: session.grow(call / 6u); break;
            default: session.stop_failures(); break;
            }
        }
        session.compare_with_fresh();
    }
    return 0;
}
