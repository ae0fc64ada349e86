#pragma once
// Small helpers the suites share: llama.cpp test-alloc.cpp's dummy backend as test buffer
// settings, ggml-style tensor naming, an observer that records events, and where the
// golden corpus lives.

#include "reference/buffer.hpp"
#include "reference/graph_allocator.hpp"
#include "reference/observer.hpp"
#include "reference/tensor.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace gallocsim {

// So that GoogleTest prints placements and addresses readably when an expectation fails.
inline std::ostream& operator<<(std::ostream& out, const Placement& p) {
    return out << "{buffer " << p.buffer_id << ", chunk " << p.chunk << ", offset " << p.offset << "}";
}
inline std::ostream& operator<<(std::ostream& out, const BufferAddress& a) {
    return out << "{chunk " << a.chunk << ", offset " << a.offset << "}";
}
inline std::ostream& operator<<(std::ostream& out, const FreeBlock& b) {
    return out << "{offset " << b.offset << ", size " << b.size << "}";
}

} // namespace gallocsim

namespace gallocsim::test_support {

// test-alloc.cpp's dummy_backend_init(max_buffer_size, alignment = 8): fake memory, so
// offsets are all that matter.
inline BufferTypeSettings dummy_backend(std::size_t max_size, std::size_t alignment = 8, std::string name = "test") {
    BufferTypeSettings settings;
    settings.name = std::move(name);
    settings.alignment = alignment;
    settings.max_size = max_size;
    settings.fake_base = true;
    return settings;
}

// test-alloc.cpp's assign_names: every tensor of the context, in creation order, gets
// prefix + index ("x0", "x1", ...).
inline void assign_names(Context& context, std::string_view prefix = "x") {
    int i = 0;
    for (Tensor& tensor : context.tensors()) {
        tensor.name = std::string(prefix) + std::to_string(i++);
    }
}

// Keeps every event the allocator reports, so a test can pick out the kinds it checks.
class EventLog : public EventListener {
public:
    void on_event(const ObservedEvent& event) override { events.push_back(event); }

    template <typename E>
    std::vector<E> all() const {
        std::vector<E> found;
        for (const ObservedEvent& event : events) {
            if (const E* e = std::get_if<E>(&event)) {
                found.push_back(*e);
            }
        }
        return found;
    }

    // Index in `events` of the first event of kind E that satisfies `match`; -1 if none.
    template <typename E, typename Match>
    int index_of(Match match) const {
        for (std::size_t i = 0; i < events.size(); ++i) {
            if (const E* e = std::get_if<E>(&events[i]); e != nullptr && match(*e)) {
                return static_cast<int>(i);
            }
        }
        return -1;
    }

    std::vector<ObservedEvent> events;
};

// Where alloc_graph put every tensor of `context` that got memory from `allocator`, in
// creation order.
inline std::vector<std::pair<std::string, Placement>> placements(const Context& context, const GraphAllocator& allocator) {
    std::vector<std::pair<std::string, Placement>> found;
    for (const Tensor& tensor : context.tensors()) {
        if (auto place = allocator.locate(tensor)) {
            found.emplace_back(tensor.name, *place);
        }
    }
    return found;
}

// A plan's places (PlanRecord::tensors, by tensor id) under the names `tensors` gives them, in
// the plan's order: the form a test writes a plan out in by hand.
template <class Plan>
std::vector<std::pair<std::string, Placement>> named_places(const Plan& plan, const Context& tensors) {
    std::vector<std::pair<std::string, Placement>> named;
    for (const auto& [id, place] : plan.tensors) {
        named.emplace_back(tensors.tensors().at(static_cast<std::size_t>(id)).name, place);
    }
    return named;
}

// A whole file as it is on disk (empty when it cannot be read).
inline std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// A scratch file in the system's temporary folder, its name prefixed with this process's
// id, so that suites running at the same time (two build folders tested at once) do not
// write over each other's files.
inline std::filesystem::path scratch_path(std::string_view name) {
    return std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-" + std::string(name));
}

inline std::filesystem::path shared_dir() { return GALLOCSIM_SHARED_DIR; }
inline std::filesystem::path golden_dir() { return shared_dir() / "golden"; }

} // namespace gallocsim::test_support
