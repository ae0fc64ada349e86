#include "reference/linear_allocator.hpp"

#include "reference/dynamic_allocator.hpp"

#include <cstdint>
#include <vector>

namespace gallocsim {

LinearAllocator::LinearAllocator(Buffer& buffer) : buffer_(&buffer), alignment_(buffer.alignment()) {
    // The first tensor starts at the first aligned address of the buffer.
    const auto base = reinterpret_cast<std::uintptr_t>(buffer.base());
    offset_ = (alignment_ - base % alignment_) % alignment_;
}

Status LinearAllocator::allocate(Tensor& tensor) {
    const std::size_t size = align_up(buffer_->alloc_size(tensor), alignment_);
    if (offset_ > buffer_->size() || size > buffer_->size() - offset_) {
        error_ = "not enough space in the buffer to allocate " + tensor.name + " (needed " + std::to_string(size) +
                 ", available " + std::to_string(offset_ > buffer_->size() ? 0 : buffer_->size() - offset_) + ")";
        return Status::alloc_failed;
    }
    if (auto error = place_tensor(*buffer_, tensor, offset_); !error.empty()) {
        error_ = std::move(error);
        return Status::failed;
    }
    offset_ += size;
    return Status::success;
}

namespace {

std::size_t padded_size(const Tensor& tensor, const BufferType& type) {
    if (tensor.data != nullptr || tensor.view_src != nullptr) {
        return 0;
    }
    return align_up(type.alloc_size(tensor), type.alignment());
}

// Ranges of tensors (by index) that share one buffer: a new buffer starts when adding
// the next tensor would pass max_size.
struct Range {
    std::size_t first = 0;
    std::size_t last = 0;  // one past
    std::size_t size = 0;
};

std::vector<Range> split_ranges(const Context& context, const BufferType& type) {
    std::vector<Range> ranges;
    const std::size_t max_size = type.max_size();
    Range current;
    std::size_t i = 0;
    for (const Tensor& tensor : context.tensors()) {
        const std::size_t size = padded_size(tensor, type);
        if (current.size > 0 && current.size + size > max_size) {
            current.last = i;
            ranges.push_back(current);
            current = {i, i, size};
        } else {
            current.size += size;
        }
        ++i;
    }
    if (current.size > 0) {
        current.last = i;
        ranges.push_back(current);
    }
    return ranges;
}

} // namespace

std::size_t context_tensors_size(const Context& context, const BufferType& type) {
    std::size_t total = 0;
    for (const Range& range : split_ranges(context, type)) {
        total += range.size;
    }
    return total;
}

ContextAllocation alloc_context_tensors(Context& context, BufferType& type) {
    ContextAllocation result;
    std::vector<std::unique_ptr<Buffer>> parts;
    std::vector<Tensor*> placed;
    auto fail = [&](std::string error) {
        for (Tensor* tensor : placed) {
            tensor->buffer = nullptr;
            tensor->data = nullptr;
        }
        return ContextAllocation{false, nullptr, std::move(error)};
    };

    for (const Range& range : split_ranges(context, type)) {
        auto buffer = type.allocate(range.size);
        if (!buffer) {
            return fail("failed to allocate " + std::string(type.name()) + " buffer of size " + std::to_string(range.size));
        }
        LinearAllocator allocator(*buffer);
        for (std::size_t i = range.first; i < range.last; ++i) {
            Tensor& tensor = context.tensors()[i];
            if (tensor.view_src == nullptr && tensor.data == nullptr) {
                if (allocator.allocate(tensor) != Status::success) {
                    return fail("failed to initialize tensor " + tensor.name + ": " + allocator.error());
                }
                placed.push_back(&tensor);
            } else if (tensor.view_src != nullptr && tensor.buffer == nullptr) {
                if (auto error = init_view(tensor); !error.empty()) {
                    return fail("failed to initialize tensor " + tensor.name + ": " + error);
                }
                placed.push_back(&tensor);
            }
        }
        parts.push_back(std::move(buffer));
    }

    if (parts.size() == 1) {
        result.buffer = std::move(parts.front());
    } else if (parts.size() > 1) {
        result.buffer = std::make_unique<MultiBuffer>(type, std::move(parts));
    }
    return result;
}

} // namespace gallocsim
