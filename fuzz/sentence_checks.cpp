#include "fuzz/sentence_checks.hpp"

#include "simulator/model/plan.hpp"
#include "simulator/trace/explain.hpp"
#include "simulator/trace/state.hpp"

#include <algorithm>
#include <regex>

namespace gallocsim::fuzz {
namespace {

// "N bytes", and the binary size byte_count adds from 1 KiB: "2048 bytes (2.00 KiB)".
const std::string kBytes = R"((\d+) bytes?(?: \([\d.]+ [KMGTPE]iB\))?)";
// "offset 32", "offset 32 of chunk 1", "offset 32 in buffer 1", both.
const std::string kWhere = R"(offset (\d+)(?: of chunk (\d+))?(?: in buffer (\d+))?)";

const std::regex kAllocated("needs " + kBytes + R"((?: \((\d+) once aligned to \d+\))? and goes at )" + kWhere);
const std::regex kStaysFree("so " + kBytes + R"( stay free at offset (\d+))");
const std::regex kGrows(R"(grows from (\d+) to (\d+) bytes?)");
const std::regex kStays("does not grow: it stays " + kBytes);
const std::regex kNewChunkGrows("which grows to " + kBytes);
const std::regex kWentTo(R"(whose memory went to (.+?) in place,)");
const std::regex kReuses(" reuses .*? at " + kWhere + ": ");
const std::regex kHadMemory("it had memory at " + kWhere);
const std::regex kGivesIt("with no memory of its own, gives it " + kWhere);
const std::regex kFreedBytes("Its " + kBytes + " at " + kWhere);
const std::regex kExtraBytes("the " + kBytes + " past .*?'s end, at " + kWhere);
const std::regex kIntoOneBlock("into one free block of " + kBytes + R"( at offset (\d+))");
const std::regex kTailStarts(R"(the tail now starts at offset (\d+))");
const std::regex kPlaces(R"(\+ offset (\d+) = )");
const std::regex kBaseOfChunk(R"(the base of chunk (\d+))");
const std::regex kSameAddress(R"(, the same address as (.+?), whose memory it reuses)");
const std::regex kTookOver(R"(, the memory it took over from (.+?) in place \()");

std::size_t number(const std::ssub_match& match, std::size_t otherwise = 0) {
    return match.matched ? std::stoull(match.str()) : otherwise;
}

bool contains(const std::string& text, const char* words) {
    return text.find(words) != std::string::npos;
}

// A place in the arena: which allocator (buffer ids sharing a type share one), chunk, offset.
struct Place {
    int allocator = 0;
    int chunk = 0;
    std::size_t offset = 0;
    bool operator==(const Place&) const = default;
};

std::string text_of(const Place& place) {
    return "offset " + std::to_string(place.offset) + " of chunk " + std::to_string(place.chunk) + " of allocator " +
           std::to_string(place.allocator);
}

class Checker {
public:
    Checker(const Trace& trace, std::span<const std::optional<Placement>> final_places)
        : trace_(trace), final_places_(final_places), places_(trace.tensors.size()) {}

    void check(std::size_t index, const std::string& text, const SimState& before, const SimState& after) {
        index_ = index;
        text_ = &text;
        before_ = &before;
        after_ = &after;
        ++report_.sentences;
        std::visit([&](const auto& e) { on(e); }, trace_.events[index].data);
    }

    // After the last event: the places every report shows are the last ones the trace gave.
    void check_final_places() {
        for (std::size_t id = 0; id < places_.size(); ++id) {
            const auto& final_place = final_place_of(static_cast<TensorId>(id));
            if (places_[id].empty() || !final_place || trace_.tensor(static_cast<TensorId>(id)).is_view()) {
                continue;
            }
            ++report_.facts;
            if (places_[id].back() != *final_place) {
                report_.contradictions.push_back("tensor " + trace_.tensor(static_cast<TensorId>(id)).name + ": its last place in the trace is " +
                                                 text_of(places_[id].back()) + ", but alloc_graph put it at " +
                                                 text_of(*final_place));
            }
        }
        if (expect_again_ != kNoTensor) {
            fail_plain("the trace ends right after " + name(expect_again_) + " was placed again, with no event saying so");
        }
    }

    SentenceReport take() { return std::move(report_); }

private:
    // --- each kind's facts ------------------------------------------------------------------

    void on(const Recorded<event::NodeStarted>& e) {
        check_placed_again_reported(kNoTensor);
        if (contains(*text_, "It already has memory: it was allocated early")) {
            fact(before_->tensor(e.node).life == TensorLife::live, "says the node already has memory, but it holds none");
        } else if (contains(*text_, "It already has memory from outside the allocator")) {
            fact(trace_.tensor(e.node).external, "says the node's memory is from outside the allocator, but it is not");
        }
    }

    void on(const Recorded<event::TensorAllocated>& e) {
        check_placed_again_reported(kNoTensor);
        std::smatch m;
        if (!fact(std::regex_search(*text_, m, kAllocated), "states no size and offset")) {
            return;
        }
        const std::size_t aligned = number(m[2], number(m[1]));
        const Place stated = stated_place(m[3], m[4], m[5], e.buffer_id);
        const TensorState& now = after_->tensor(e.tensor);
        fact(now.life == TensorLife::live && place_of(now.record) == stated,
             "says " + name(e.tensor) + " goes at " + text_of(stated) + ", but the arena has it at " + text_of(place_of(now.record)));
        if (const Chunk* chunk = chunk_in(*before_, stated)) {
            fact(lies_in_a_free_block(*chunk, stated.offset, aligned),
                 "places " + std::to_string(aligned) + " bytes at " + text_of(stated) + ", which were not all free");
        }
        stated_block_facts(stated);
        if (std::regex_search(*text_, m, kWentTo)) {
            const TensorState& was = before_->tensor(e.tensor);
            fact(was.life == TensorLife::handed_over && name(was.handed_to) == m[1].str(),
                 "says " + name(e.tensor) + "'s memory went to " + m[1].str() + " in place, but the arena does not");
        } else if (contains(*text_, "that was freed,")) {
            fact(before_->tensor(e.tensor).life == TensorLife::freed, "says " + name(e.tensor) + " was freed, but it was not");
        } else if (contains(*text_, "with no memory yet,")) {
            fact(before_->tensor(e.tensor).life == TensorLife::none, "says " + name(e.tensor) + " had no memory yet, but it had");
        }
        note_place(e.tensor, stated);
    }

    void on(const Recorded<event::InPlaceReused>& e) {
        check_placed_again_reported(kNoTensor);
        std::smatch m;
        if (!fact(std::regex_search(*text_, m, kReuses), "states no offset")) {
            return;
        }
        const Place stated = stated_place(m[1], m[2], m[3], e.buffer_id);
        const TensorId owner = e.view_source != kNoTensor ? e.view_source : e.parent;
        fact(before_->tensor(owner).record.allocated && place_of(before_->tensor(owner).record) == stated,
             "says " + name(e.node) + " reuses " + name(owner) + "'s memory at " + text_of(stated) + ", but " + name(owner) +
                 " held " + text_of(place_of(before_->tensor(owner).record)));
        fact(place_of(after_->tensor(e.node).record) == stated,
             "says " + name(e.node) + " is now at " + text_of(stated) + ", but the arena has it elsewhere");
        note_place(e.node, stated);
    }

    void on(const Recorded<event::TensorPlacedAgain>& e) {
        check_placed_again_reported(e.tensor);
        const auto& places = places_[static_cast<std::size_t>(e.tensor)];
        if (!fact(places.size() >= 2, "says " + name(e.tensor) + " is placed a second time, but it was placed once")) {
            return;
        }
        std::smatch m;
        if (fact(std::regex_search(*text_, m, kHadMemory), "states no earlier place")) {
            const Place stated = stated_place(m[1], m[2], m[3], e.previous_buffer);
            fact(stated == places[places.size() - 2],
                 "says " + name(e.tensor) + " had memory at " + text_of(stated) + ", but it was at " + text_of(places[places.size() - 2]));
        }
        if (fact(std::regex_search(*text_, m, kGivesIt), "states no new place")) {
            const Place stated = stated_place(m[1], m[2], m[3], after_->tensor(e.tensor).record.buffer_id);
            fact(stated == places.back(), "says " + name(e.tensor) + " now goes at " + text_of(stated) + ", but it went to " +
                                              text_of(places.back()));
        }
    }

    void on(const Recorded<event::TensorFreed>& e) {
        check_placed_again_reported(kNoTensor);
        std::smatch m;
        if (!fact(std::regex_search(*text_, m, kFreedBytes), "states no freed bytes")) {
            return;
        }
        const std::size_t size = number(m[1]);
        const Place stated = stated_place(m[2], m[3], m[4], e.buffer_id);
        const TensorState& was = before_->tensor(e.tensor);
        fact(was.record.allocated && place_of(was.record) == stated,
             "says " + name(e.tensor) + "'s bytes at " + text_of(stated) + " are freed, but it held " + text_of(place_of(was.record)));
        merge_facts(stated, size);
    }

    void on(const Recorded<event::ExtraSpaceFreed>& e) {
        check_placed_again_reported(kNoTensor);
        std::smatch m;
        if (fact(std::regex_search(*text_, m, kExtraBytes), "states no freed bytes")) {
            merge_facts(stated_place(m[2], m[3], m[4], e.buffer_id), number(m[1]));
        }
    }

    void on(const Recorded<event::ParentReleased>& e) {
        check_placed_again_reported(kNoTensor);
        if (contains(*text_, "so it is freed next")) {
            const bool next_frees = index_ + 1 < trace_.size() && [&] {
                const auto* freed = std::get_if<Recorded<event::TensorFreed>>(&trace_.events[index_ + 1].data);
                return freed != nullptr && freed->tensor == e.parent;
            }();
            fact(next_frees, "says " + name(e.parent) + " is freed next, but the next event frees nothing of it");
        }
    }

    void on(const Recorded<event::TensorInitialised>& e) {
        check_placed_again_reported(kNoTensor);
        const auto& final_place = final_place_of(e.tensor);
        std::smatch m;
        if (e.buffer_id < 0 || !std::regex_search(*text_, m, kPlaces)) {
            return;  // a view: placed inside its source, which its own sentence checks
        }
        if (!fact(final_place.has_value(), "places " + name(e.tensor) + ", which alloc_graph left without memory")) {
            return;
        }
        std::smatch chunk;
        const int stated_chunk = std::regex_search(*text_, chunk, kBaseOfChunk) ? static_cast<int>(number(chunk[1])) : 0;
        const Place stated{trace_.buffer(e.buffer_id).allocator, stated_chunk, number(m[1])};
        fact(stated == *final_place, "says alloc_graph places " + name(e.tensor) + " at " + text_of(stated) + ", but it is at " +
                                         text_of(*final_place));
        if (std::regex_search(*text_, m, kSameAddress)) {
            const auto other = trace_.find(m[1].str());
            if (other && !final_place_of(*other) && !trace_.error.empty()) {
                // alloc_graph failed before it reached the other tensor (a zero-element chain in a
                // buffer of 0 bytes, say): the plan's place the sentence names is all there is.
                return;
            }
            const bool same = other && final_place_of(*other) == final_place;
            fact(same, "says " + name(e.tensor) + " is at the same address as " + m[1].str() + ", but " + m[1].str() + " is at " +
                           (other && final_place_of(*other) ? text_of(*final_place_of(*other)) : "no place"));
        } else if (std::regex_search(*text_, m, kTookOver)) {
            const auto other = trace_.find(m[1].str());
            fact(other && final_place_of(*other) != final_place,
                 "says " + m[1].str() + " lies elsewhere than " + name(e.tensor) + ", but both are at " + text_of(*final_place));
            // "(a was placed again after, elsewhere)": x = ADD(x, a) takes a's block, and a, met
            // next as x's source, is placed again; the sentence must not invent that second place.
            fact(other && placed_again_before(*other), "says " + m[1].str() + " was placed again, but no event placed it again");
        }
    }

    // "x reads itself": only a node that names itself as a source (ggml_cast's CPY) may be said to.
    void on(const Recorded<event::ConsumerCounted>& e) {
        check_placed_again_reported(kNoTensor);
        if (text_->starts_with(name(e.consumer) + " reads itself")) {
            const auto& sources = trace_.tensor(e.consumer).src;
            fact(e.tensor == e.consumer && std::ranges::find(sources, e.consumer) != sources.end(),
                 "says " + name(e.consumer) + " reads itself, but " + name(e.consumer) + " does not name itself as a source");
        }
    }

    template <class Kind>
    void on(const Kind&) {
        check_placed_again_reported(kNoTensor);
    }

    // --- shared facts -----------------------------------------------------------------------

    // "so K bytes stay free at offset P", "grows from A to B", "it stays B", "which grows to B".
    void stated_block_facts(const Place& at) {
        const Chunk* before = chunk_in(*before_, at);
        const Chunk* after = chunk_in(*after_, at);
        if (after == nullptr) {
            fact(false, "names " + text_of(at) + ", a chunk the arena does not have");
            return;
        }
        std::smatch m;
        if (std::regex_search(*text_, m, kStaysFree)) {
            fact(has_block(*after, number(m[2]), number(m[1])),
                 "says " + m[1].str() + " bytes stay free at offset " + m[2].str() + ", but no such free block is there");
        }
        if (std::regex_search(*text_, m, kGrows)) {
            fact(before != nullptr && before->high_water == number(m[1]) && after->high_water == number(m[2]),
                 "says the chunk grows from " + m[1].str() + " to " + m[2].str() + " bytes, but it went from " +
                     std::to_string(before ? before->high_water : 0) + " to " + std::to_string(after->high_water));
        }
        if (std::regex_search(*text_, m, kStays)) {
            fact(before != nullptr && before->high_water == number(m[1]) && after->high_water == number(m[1]),
                 "says the chunk stays " + m[1].str() + " bytes, but it is " + std::to_string(after->high_water));
        }
        if (std::regex_search(*text_, m, kNewChunkGrows)) {
            fact(after->high_water == number(m[1]),
                 "says the new chunk grows to " + m[1].str() + " bytes, but it is " + std::to_string(after->high_water));
        }
    }

    // What became of `size` bytes freed at `at`: which neighbours they joined, the block made.
    void merge_facts(const Place& at, std::size_t size) {
        const Chunk* after = chunk_in(*after_, at);
        if (!fact(after != nullptr, "frees bytes in " + text_of(at) + ", a chunk the arena does not have")) {
            return;
        }
        const std::size_t begin = at.offset;
        const std::size_t end = at.offset + size;
        // Upstream's free lists may hold a block inside another's range (an empty block freed
        // inside the tail), so each phrase asks for a block that fits it, not for one holder.
        const auto some_block = [&](auto&& fits) {
            return std::ranges::any_of(after->free_blocks, [&](const FreeBlock& b) { return fits(b.offset, b.end()); });
        };
        std::smatch m;
        if (contains(*text_, "touching no other") || contains(*text_, "empty free block of their own")) {
            fact(has_block(*after, begin, size), "says the freed bytes become a block of their own, but they do not");
        }
        if (contains(*text_, "on both sides")) {
            fact(some_block([&](std::size_t b, std::size_t e) { return b < begin && e > end; }),
                 "says the freed bytes join free blocks on both sides, but no block reaches over both");
        }
        if (contains(*text_, "the free block before them")) {
            fact(some_block([&](std::size_t b, std::size_t e) { return b < begin && e >= end; }),
                 "says the freed bytes join a free block before them, but none is there");
        }
        if (contains(*text_, "the free block after them")) {
            fact(some_block([&](std::size_t b, std::size_t e) { return b <= begin && e > end; }),
                 "says the freed bytes join a free block after them, but none is there");
        }
        if (contains(*text_, "(0 bytes) at their start")) {
            fact(some_block([&](std::size_t b, std::size_t e) { return b == begin && e >= end; }),
                 "says the block before the freed bytes was empty, but the result starts before them");
        }
        if (contains(*text_, "(0 bytes) at their end")) {
            fact(some_block([&](std::size_t b, std::size_t e) { return b <= begin && e == end; }),
                 "says the block after the freed bytes was empty, but the result ends after them");
        }
        if (std::regex_search(*text_, m, kIntoOneBlock)) {
            fact(has_block(*after, number(m[2]), number(m[1])),
                 "says the result is one free block of " + m[1].str() + " bytes at offset " + m[2].str() + ", but it is not");
        }
        if (std::regex_search(*text_, m, kTailStarts)) {
            fact(!after->free_blocks.empty() && after->free_blocks.back().offset == number(m[1]),
                 "says the tail now starts at offset " + m[1].str() + ", but the tail starts at " +
                     std::to_string(after->free_blocks.back().offset));
        }
    }

    // A tensor given memory a second time must be followed at once by the event that says so.
    void note_place(TensorId tensor, const Place& place) {
        auto& places = places_[static_cast<std::size_t>(tensor)];
        if (!places.empty()) {
            expect_again_ = tensor;
        }
        places.push_back(place);
    }

    void check_placed_again_reported(TensorId placed_again) {
        if (placed_again != expect_again_) {
            fail_plain(expect_again_ != kNoTensor
                           ? name(expect_again_) + " was given memory a second time, and no event says so"
                           : "says " + name(placed_again) + " is placed again, right after no placement of it");
        }
        expect_again_ = kNoTensor;
    }

    // --- helpers -----------------------------------------------------------------------------

    bool fact(bool holds, const std::string& what) {
        ++report_.facts;
        if (!holds) {
            fail_plain(what);
        }
        return holds;
    }

    void fail_plain(const std::string& what) {
        report_.contradictions.push_back("event " + std::to_string(index_ + 1) + " (" +
                                         std::string(kind_name(kind_of(trace_.events[index_]))) + "): " + what + " [" +
                                         (text_ != nullptr ? *text_ : std::string()) + "]");
    }

    Place stated_place(const std::ssub_match& offset, const std::ssub_match& chunk, const std::ssub_match& buffer,
                       int event_buffer) const {
        const int id = buffer.matched ? static_cast<int>(number(buffer)) : event_buffer;
        const int allocator = id >= 0 && static_cast<std::size_t>(id) < trace_.buffers.size() ? trace_.buffer(id).allocator : -1;
        return {allocator, static_cast<int>(number(chunk)), number(offset)};
    }

    Place place_of(const HashNode& record) const {
        return {trace_.buffer(record.buffer_id).allocator, record.address.chunk, record.address.offset};
    }

    std::optional<Place> final_place_of(TensorId id) const {
        const auto index = static_cast<std::size_t>(id);
        if (index >= final_places_.size() || !final_places_[index]) {
            return std::nullopt;
        }
        const Placement& p = *final_places_[index];
        return Place{trace_.buffer(p.buffer_id).allocator, p.chunk, p.offset};
    }

    static const Chunk* chunk_in(const SimState& state, const Place& place) {
        if (place.allocator < 0 || static_cast<std::size_t>(place.allocator) >= state.allocators.size()) {
            return nullptr;
        }
        const auto& chunks = state.allocators[static_cast<std::size_t>(place.allocator)].chunks;
        return place.chunk >= 0 && static_cast<std::size_t>(place.chunk) < chunks.size()
                   ? &chunks[static_cast<std::size_t>(place.chunk)]
                   : nullptr;
    }

    static bool has_block(const Chunk& chunk, std::size_t offset, std::size_t size) {
        return std::ranges::any_of(chunk.free_blocks, [&](const FreeBlock& b) { return b.offset == offset && b.size == size; });
    }

    static bool lies_in_a_free_block(const Chunk& chunk, std::size_t offset, std::size_t size) {
        return std::ranges::any_of(chunk.free_blocks,
                                   [&](const FreeBlock& b) { return b.offset <= offset && offset + size <= b.end(); });
    }

    std::string name(TensorId id) const { return id == kNoTensor ? "(none)" : trace_.tensor(id).name; }

    bool placed_again_before(TensorId tensor) const {
        for (std::size_t i = 0; i < index_; ++i) {
            const auto* again = std::get_if<Recorded<event::TensorPlacedAgain>>(&trace_.events[i].data);
            if (again != nullptr && again->tensor == tensor) {
                return true;
            }
        }
        return false;
    }

    const Trace& trace_;
    std::span<const std::optional<Placement>> final_places_;
    std::vector<std::vector<Place>> places_;  // per tensor: each place the trace gave it, in order
    TensorId expect_again_ = kNoTensor;       // placed a second time by the last event
    SentenceReport report_;
    std::size_t index_ = 0;
    const std::string* text_ = nullptr;
    const SimState* before_ = nullptr;
    const SimState* after_ = nullptr;
};

} // namespace

SentenceReport check_sentences(const Trace& trace, std::span<const std::optional<Placement>> final_places) {
    Checker checker(trace, final_places);
    SimState before = initial_state(trace);
    for (std::size_t i = 0; i < trace.size(); ++i) {
        const std::string text = explain(trace, before, i);
        SimState after = before;
        apply_next(after, trace);
        checker.check(i, text, before, after);
        before = std::move(after);
    }
    if (trace.error.empty()) {
        checker.check_final_places();
    }
    return checker.take();
}

SentenceReport check_sentences(const GraphFile& file, const AllocatorProfile& profile) {
    PlanRun run = prepare_plan(file, profile);
    TraceRecorder recorder(file, run.planned, profile);
    carry_out_plan(run, &recorder);
    const Trace trace = recorder.take(run.error);
    std::vector<std::optional<Placement>> final_places;
    for (const Tensor& tensor : run.planned.context.tensors()) {
        final_places.push_back(run.allocator->locate(tensor));
    }
    return check_sentences(trace, final_places);
}

} // namespace gallocsim::fuzz
