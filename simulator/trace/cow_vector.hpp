#pragma once
// A fixed-size vector split into pages that copies share until one of them writes: a copy
// costs one pointer per page, and a write copies only the page it lands in. The cursor
// keeps a checkpoint of the state every K events; with tens of thousands of tensors and
// a few changing between checkpoints, full copies would cost gigabytes.

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

namespace gallocsim {

template <typename T, std::size_t PageSize = 16>
class CowVector {
public:
    static constexpr std::size_t kPageSize = PageSize;
    CowVector() = default;
    CowVector(std::size_t size, const T& value) { assign(size, value); }

    void assign(std::size_t size, const T& value) {
        size_ = size;
        pages_.clear();
        Page filled;
        filled.fill(value);
        for (std::size_t i = 0; i < size; i += PageSize) {
            pages_.push_back(std::make_shared<Page>(filled));
        }
    }

    std::size_t size() const { return size_; }
    const T& operator[](std::size_t i) const { return (*pages_[i / PageSize])[i % PageSize]; }

    // The element, writable: its page is copied first if another vector shares it.
    T& mutate(std::size_t i) {
        auto& page = pages_[i / PageSize];
        if (page.use_count() > 1) {
            page = std::make_shared<Page>(*page);
        }
        return (*page)[i % PageSize];
    }

    bool operator==(const CowVector& other) const {
        if (size_ != other.size_) {
            return false;
        }
        for (std::size_t p = 0; p < pages_.size(); ++p) {
            if (pages_[p] == other.pages_[p]) {
                continue;  // shared: equal without looking
            }
            const std::size_t used = std::min(PageSize, size_ - p * PageSize);
            if (!std::equal(pages_[p]->begin(), pages_[p]->begin() + static_cast<std::ptrdiff_t>(used),
                            other.pages_[p]->begin())) {
                return false;
            }
        }
        return true;
    }

private:
    using Page = std::array<T, PageSize>;
    std::vector<std::shared_ptr<Page>> pages_;
    std::size_t size_ = 0;
};

} // namespace gallocsim
