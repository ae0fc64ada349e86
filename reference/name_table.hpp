#pragma once
// Names to the first item listed with each, for lookups by name over a sequence that owns the
// names (a context's tensors, a file's tensors, a plan's). Open addressing over (hash, index)
// slots: a lookup reads a slot or two and compares a name only where the hashes agree, where a
// node-based map chases a pointer per bucket and keeps a key per name, a cache miss each on a
// graph of 100,000 tensors (a quarter of reading one, before this table).
//
// The table holds no names: `name_of(index)` gives an item's name whenever one must be
// compared, so the items' own storage stays the one copy.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace gallocsim {

class NameTable {
public:
    static constexpr std::size_t npos = SIZE_MAX;

    // Item `index` under `name`, unless an earlier item has the name. Returns the index the name
    // stands for afterwards: `index`, or the earlier item's.
    template <class NameOf>
    std::size_t insert(std::string_view name, std::size_t index, NameOf name_of) {
        if (2 * (used_ + 1) > slots_.size()) {
            grow();
        }
        const std::size_t hash = std::hash<std::string_view>{}(name);
        Slot& slot = slots_[probe(name, hash, name_of)];
        if (slot.index == npos) {
            slot = {hash, index};
            ++used_;
        }
        return slot.index;
    }

    // The first item with the name, or npos.
    template <class NameOf>
    std::size_t find(std::string_view name, NameOf name_of) const {
        if (slots_.empty()) {
            return npos;
        }
        return slots_[probe(name, std::hash<std::string_view>{}(name), name_of)].index;
    }

    // Room for `count` names without growing on the way.
    void reserve(std::size_t count) {
        while (slots_.size() < 2 * count) {
            grow();
        }
    }
    void clear() {
        slots_.clear();
        used_ = 0;
    }
    std::size_t size() const { return used_; }

private:
    struct Slot {
        std::size_t hash = 0;
        std::size_t index = npos;
    };

    // The slot holding the name, or the empty slot where it would go. At most half the slots
    // are used, so an empty one ends every probe.
    template <class NameOf>
    std::size_t probe(std::string_view name, std::size_t hash, NameOf& name_of) const {
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
            const Slot& slot = slots_[at];
            if (slot.index == npos || (slot.hash == hash && std::string_view(name_of(slot.index)) == name)) {
                return at;
            }
        }
    }

    // Twice the slots (16 at first), every used one moved by its kept hash: no name is read.
    void grow() {
        std::vector<Slot> old(slots_.empty() ? 16 : 2 * slots_.size());
        old.swap(slots_);
        const std::size_t mask = slots_.size() - 1;
        for (const Slot& slot : old) {
            if (slot.index == npos) {
                continue;
            }
            std::size_t at = slot.hash & mask;
            while (slots_[at].index != npos) {
                at = (at + 1) & mask;
            }
            slots_[at] = slot;
        }
    }

    std::vector<Slot> slots_;  // a power of two in size, or empty
    std::size_t used_ = 0;
};

} // namespace gallocsim
