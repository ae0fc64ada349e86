#pragma once
// Per-tensor planning records, ggml's hash set of tensor pointers with its parallel value
// array, laid out by Tensor::index instead of by a hash of the pointer.
//
// A plan meets a graph's tensors roughly in the order they were created. Kept at their
// index, neighbours in the graph are neighbours in memory and a lookup is one compare;
// hashed, every lookup lands somewhere new in a table larger than the cache (upstream's
// pointer hash keeps some order, because ggml lays tensors out one after another in a
// context). Tensors of one Context have distinct indices; a tensor whose index slot is
// taken (one from a second context, or made outside any) goes to a hashed overflow table.

#include "reference/pointer_map.hpp"
#include "reference/tensor.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gallocsim {

template <typename Value>
class TensorMap {
public:
    // Drops every entry; tensors with an index below `count` get a slot of their own, and
    // the overflow table has room for `overflow` tensors (what one make_room asks for) from
    // the start, so that a plan that never needs it never grows it.
    void reset(std::size_t count, std::size_t overflow) {
        clear_slots(owners_, values_, count);
        overflow_.reset(overflow);
        direct_count_ = 0;
    }

    // Makes sure `count` more tensors can be added without moving any value, so that
    // references stay valid while they are added (slots by index never move).
    void make_room(std::size_t count) { overflow_.make_room(count); }

    // The value for `tensor`, default-constructed on first use.
    Value& operator[](const Tensor* tensor) {
        const std::size_t i = tensor->index;
        if (i < owners_.size()) {
            if (owners_[i] == tensor) {
                return values_[i];
            }
            if (owners_[i] == nullptr) {
                owners_[i] = tensor;
                ++direct_count_;
                return values_[i];
            }
        }
        return overflow_[tensor];
    }

    const Value* find(const Tensor* tensor) const {
        const std::size_t i = tensor->index;
        if (i < owners_.size() && owners_[i] == tensor) {
            return &values_[i];
        }
        return overflow_.find(tensor);
    }

    std::size_t size() const { return direct_count_ + overflow_.size(); }

private:
    std::vector<const Tensor*> owners_;  // which tensor holds the slot at each index
    std::vector<Value> values_;
    std::size_t direct_count_ = 0;
    PointerMap<Tensor, Value> overflow_;  // tensors whose slot is out of range or taken
};

} // namespace gallocsim
