#pragma once
// A flat open-addressing map from object pointers to small values: ggml's hash set of
// tensor pointers with its parallel value array, without per-entry allocation.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gallocsim {

// Empties a table of keys and its parallel values: `count` empty slots if it has fewer, else
// every slot it has, cleared in place (a table never shrinks). PointerMap and TensorMap both.
template <typename Key, typename Value>
void clear_slots(std::vector<const Key*>& keys, std::vector<Value>& values, std::size_t count) {
    if (count > keys.size()) {
        keys.assign(count, nullptr);
        values.assign(count, Value{});
    } else {
        std::fill(keys.begin(), keys.end(), nullptr);
        std::fill(values.begin(), values.end(), Value{});
    }
}

template <typename Key, typename Value>
class PointerMap {
public:
    // Drops every entry and makes room for at least `count` keys without growing.
    void reset(std::size_t count) {
        clear_slots(keys_, values_, std::bit_ceil(std::max<std::size_t>(16, count + count / 2 + 1)));
        size_ = 0;
    }

    // Grows now, if need be, so that `count` more keys can be added without growing later:
    // references to values stay valid while those keys are added.
    void make_room(std::size_t count) {
        if (keys_.empty()) {
            reset(count);
        }
        while ((size_ + count) * 3 > keys_.size() * 2) {
            grow();
        }
    }

    // The value for `key`, default-constructed on first use. Adding a key may move every
    // value (see make_room).
    Value& operator[](const Key* key) {
        if (keys_.empty()) {
            reset(0);
        }
        std::size_t i = slot(key);
        if (keys_[i] == nullptr) {
            if ((size_ + 1) * 3 > keys_.size() * 2) {
                grow();
                i = slot(key);
            }
            keys_[i] = key;
            ++size_;
        }
        return values_[i];
    }

    const Value* find(const Key* key) const {
        if (keys_.empty()) {
            return nullptr;
        }
        const std::size_t i = slot(key);
        return keys_[i] == key ? &values_[i] : nullptr;
    }

    std::size_t size() const { return size_; }

private:
    std::size_t slot(const Key* key) const {
        const std::size_t mask = keys_.size() - 1;
        // Fibonacci hashing: the product's high bits depend on every bit of the pointer. (Its
        // low bits would not: tensors a fixed stride apart, such as 320 bytes, would then only
        // ever land on every fourth slot and probe long runs.)
        const auto bits = static_cast<unsigned>(std::countr_zero(keys_.size()));
        std::size_t i = static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(key) * 0x9E3779B97F4A7C15ull) >> (64 - bits));
        while (keys_[i] != nullptr && keys_[i] != key) {
            i = (i + 1) & mask;
        }
        return i;
    }

    void grow() {
        auto keys = std::move(keys_);
        auto values = std::move(values_);
        keys_.assign(keys.size() * 2, nullptr);
        values_.assign(keys.size() * 2, Value{});
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (keys[i] != nullptr) {
                const std::size_t j = slot(keys[i]);
                keys_[j] = keys[i];
                values_[j] = values[i];
            }
        }
    }

    std::vector<const Key*> keys_;
    std::vector<Value> values_;
    std::size_t size_ = 0;
};

} // namespace gallocsim
