#include "reference/buffer.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <numeric>

namespace gallocsim {

std::string_view alloc_size_rule_name(AllocSizeRule rule) {
    return rule == AllocSizeRule::cuda ? "cuda" : "nbytes";
}

std::optional<AllocSizeRule> parse_alloc_size_rule(std::string_view name) {
    if (name == "nbytes") {
        return AllocSizeRule::nbytes;
    }
    if (name == "cuda") {
        return AllocSizeRule::cuda;
    }
    return std::nullopt;
}

std::size_t cuda_alloc_size(const Tensor& tensor) {
    constexpr std::int64_t kMatrixRowPadding = 512;
    std::size_t size = nbytes(tensor);
    const std::int64_t ne0 = tensor.ne[0];
    if (is_quantized(tensor.type) && ne0 % kMatrixRowPadding != 0) {
        size += row_size(tensor.type, kMatrixRowPadding - ne0 % kMatrixRowPadding);
    }
    return size;
}

std::size_t alloc_size_by_rule(AllocSizeRule rule, const Tensor& tensor) {
    return rule == AllocSizeRule::cuda ? cuda_alloc_size(tensor) : nbytes(tensor);
}

std::unique_ptr<Buffer> BufferType::allocate(std::size_t size, ZeroSize zero) {
    if (size == 0 && zero == ZeroSize::dummy) {
        return std::make_unique<EmptyBuffer>(*this);
    }
    return allocate_memory(size);
}

// --- Buffer -------------------------------------------------------------------------

bool Buffer::contains(const void* data, std::size_t size) const {
    const auto begin = reinterpret_cast<std::uintptr_t>(base());
    const auto at = reinterpret_cast<std::uintptr_t>(data);
    return at >= begin && at - begin <= size_ && size <= size_ - (at - begin);
}

std::optional<std::size_t> Buffer::tensor_position(const Tensor& tensor, std::size_t offset, std::size_t size) const {
    if (tensor.buffer != this || tensor.data == nullptr || !is_addressable()) {
        return std::nullopt;
    }
    const std::size_t tensor_bytes = nbytes(tensor);
    if (offset > tensor_bytes || size > tensor_bytes - offset) {
        return std::nullopt;
    }
    const auto at = static_cast<std::size_t>(static_cast<const std::byte*>(tensor.data) - static_cast<const std::byte*>(base()));
    if (!contains(tensor.data, offset + size)) {
        return std::nullopt;
    }
    return at + offset;
}

Status Buffer::set_tensor(const Tensor& tensor, std::span<const std::byte> bytes, std::size_t offset) {
    const auto at = tensor_position(tensor, offset, bytes.size());
    return at ? write(*at, bytes) : Status::failed;
}

Status Buffer::get_tensor(const Tensor& tensor, std::span<std::byte> bytes, std::size_t offset) const {
    const auto at = tensor_position(tensor, offset, bytes.size());
    return at ? read(*at, bytes) : Status::failed;
}

Status Buffer::memset_tensor(const Tensor& tensor, std::uint8_t value, std::size_t offset, std::size_t size) {
    const auto at = tensor_position(tensor, offset, size);
    return at ? fill(*at, value, size) : Status::failed;
}

Status Buffer::write(std::size_t at, std::span<const std::byte> bytes) {
    std::memcpy(static_cast<std::byte*>(base()) + at, bytes.data(), bytes.size());
    return Status::success;
}

Status Buffer::read(std::size_t at, std::span<std::byte> bytes) const {
    std::memcpy(bytes.data(), static_cast<const std::byte*>(base()) + at, bytes.size());
    return Status::success;
}

Status Buffer::fill(std::size_t at, std::uint8_t value, std::size_t size) {
    std::memset(static_cast<std::byte*>(base()) + at, value, size);
    return Status::success;
}

std::string place_tensor(Buffer& buffer, Tensor& tensor, std::size_t offset) {
    return place_tensor(buffer, tensor, offset, buffer.alloc_size(tensor));
}

std::string place_tensor(Buffer& buffer, Tensor& tensor, std::size_t offset, std::size_t size) {
    if (tensor.buffer != nullptr || tensor.data != nullptr) {
        return "tensor " + tensor.name + " already has memory" +
               (tensor.data == nullptr ? " (a buffer but no address: it sits in a zero-size buffer)" : "");
    }
    if (tensor.view_src != nullptr) {
        return "tensor " + tensor.name + " is a view; views take their source's memory";
    }
    if (offset > buffer.size() || size > buffer.size() - offset) {
        return "tensor " + tensor.name + " (" + std::to_string(size) + " bytes at offset " + std::to_string(offset) +
               ") does not fit a buffer of " + std::to_string(buffer.size()) + " bytes";
    }
    tensor.buffer = &buffer;
    tensor.data = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(buffer.base()) + offset);
    buffer.init_tensor(tensor);
    return {};
}

std::string init_view(Tensor& view) {
    if (view.view_src == nullptr || view.buffer != nullptr) {
        return "tensor " + view.name + (view.view_src == nullptr ? " is not a view" : " already has memory");
    }
    const Tensor& source = *view.view_src;
    if (source.buffer == nullptr || source.data == nullptr) {
        return "cannot set up view " + view.name + ": its source " + source.name + " has no memory yet";
    }
    view.buffer = source.buffer;
    view.data = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(source.data) + view.view_offs);
    view.buffer->init_tensor(view);
    return {};
}

// --- HostBuffer ---------------------------------------------------------------------

void HostBuffer::AlignedFree::operator()(std::byte* p) const {
    ::operator delete[](p, std::align_val_t{alignment});
}

std::unique_ptr<HostBuffer> HostBuffer::create(BufferType& type, std::size_t size, std::size_t alignment) {
    auto* memory = static_cast<std::byte*>(::operator new[](size, std::align_val_t{alignment}, std::nothrow));
    if (memory == nullptr) {
        return nullptr;
    }
    return std::unique_ptr<HostBuffer>(
        new HostBuffer(type, size, std::unique_ptr<std::byte[], AlignedFree>(memory, AlignedFree{alignment})));
}

// --- MultiBuffer --------------------------------------------------------------------

MultiBuffer::MultiBuffer(BufferType& type, std::vector<std::unique_ptr<Buffer>> parts)
    : Buffer(type, total_size(parts)), parts_(std::move(parts)) {}

std::size_t MultiBuffer::total_size(const std::vector<std::unique_ptr<Buffer>>& parts) {
    return std::accumulate(parts.begin(), parts.end(), std::size_t{0},
                           [](std::size_t sum, const auto& part) { return sum + part->size(); });
}

void MultiBuffer::set_usage(BufferUsage usage) {
    Buffer::set_usage(usage);
    for (auto& part : parts_) {
        part->set_usage(usage);
    }
}

void MultiBuffer::reset() {
    for (auto& part : parts_) {
        part->reset();
    }
}

// --- CPU ----------------------------------------------------------------------------

std::unique_ptr<Buffer> CpuBufferType::allocate_memory(std::size_t size) {
    // ggml_aligned_malloc aligns host buffers to 64 bytes, more than the type's 32.
    return HostBuffer::create(*this, size, 64);
}

// --- Test ---------------------------------------------------------------------------

namespace {

// A buffer with a made-up base address: plans and addresses, no memory.
class FakeBuffer final : public Buffer {
public:
    FakeBuffer(BufferType& type, std::size_t size, std::shared_ptr<std::size_t> live)
        : Buffer(type, size), live_(std::move(live)) {
        ++*live_;
    }
    ~FakeBuffer() override { --*live_; }
    void* base() const override { return reinterpret_cast<void*>(ConfigurableBufferType::kFakeBase); }
    bool is_addressable() const override { return false; }

private:
    std::shared_ptr<std::size_t> live_;
};

// Host memory whose lifetime the test type counts.
class CountedHostBuffer final : public Buffer {
public:
    CountedHostBuffer(std::unique_ptr<HostBuffer> memory, std::shared_ptr<std::size_t> live)
        : Buffer(memory->type(), memory->size()), memory_(std::move(memory)), live_(std::move(live)) {
        ++*live_;
    }
    ~CountedHostBuffer() override { --*live_; }
    void* base() const override { return memory_->base(); }

private:
    std::unique_ptr<HostBuffer> memory_;
    std::shared_ptr<std::size_t> live_;
};

} // namespace

bool ConfigurableBufferType::should_fail(std::size_t size) const {
    const std::size_t index = allocations_;
    if (settings_.fail_above && size > *settings_.fail_above) {
        return true;
    }
    if (!settings_.fail_at_allocation) {
        return false;
    }
    return settings_.fail_from_then_on ? index >= *settings_.fail_at_allocation : index == *settings_.fail_at_allocation;
}

std::size_t ConfigurableBufferType::alloc_size(const Tensor& tensor) const {
    if (settings_.tensor_sizes && tensor.index < settings_.tensor_sizes->size()) {
        if (const auto& recorded = (*settings_.tensor_sizes)[tensor.index]) {
            return *recorded;
        }
    }
    return alloc_size_by_rule(settings_.alloc_size, tensor);
}

std::unique_ptr<Buffer> ConfigurableBufferType::allocate_memory(std::size_t asked) {
    const bool fail = should_fail(asked) || settings_.buffer_extra > SIZE_MAX - asked;
    ++allocations_;
    if (fail) {
        return nullptr;
    }
    const std::size_t size = asked + settings_.buffer_extra;
    if (settings_.fake_base) {
        return std::make_unique<FakeBuffer>(*this, size, live_);
    }
    auto memory = HostBuffer::create(*this, size, std::max<std::size_t>(settings_.alignment, 64));
    if (!memory) {
        return nullptr;
    }
    return std::make_unique<CountedHostBuffer>(std::move(memory), live_);
}

} // namespace gallocsim
