#pragma once
// Buffer types and buffers (ggml-backend's buffer_type / buffer, as the allocator sees
// them). A buffer type knows its alignment, its largest buffer and how many bytes a
// tensor needs in it; a buffer is one allocation with a base address.

#include "reference/tensor.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

class Buffer;

inline constexpr std::size_t kSizeMax = std::numeric_limits<std::size_t>::max();

// ggml_status, reduced to what buffers report.
enum class Status { success, alloc_failed, failed };

enum class BufferUsage { any, weights, compute };  // GGML_BACKEND_BUFFER_USAGE_*

// How a buffer type computes ggml_backend_buft_get_alloc_size.
enum class AllocSizeRule {
    nbytes,  // ggml_nbytes (CPU and most backends)
    cuda,    // ggml-cuda: quantized rows padded to a multiple of 512 elements
};

std::string_view alloc_size_rule_name(AllocSizeRule rule);
std::optional<AllocSizeRule> parse_alloc_size_rule(std::string_view name);

// ggml-cuda's get_alloc_size: nbytes plus, for a quantized tensor whose ne[0] is not a
// multiple of 512 (MATRIX_ROW_PADDING), the bytes of the missing row elements.
std::size_t cuda_alloc_size(const Tensor& tensor);
std::size_t alloc_size_by_rule(AllocSizeRule rule, const Tensor& tensor);

class BufferType {
public:
    virtual ~BufferType() = default;

    virtual std::string_view name() const = 0;
    virtual std::size_t alignment() const = 0;
    virtual std::size_t max_size() const { return kSizeMax; }
    virtual std::size_t alloc_size(const Tensor& tensor) const { return nbytes(tensor); }

    // What a request for 0 bytes gives: since ggml da649f70 (2024-10-30) a dummy buffer
    // with no memory and no base; before, the buffer type was asked like for any size.
    enum class ZeroSize { dummy, from_type };
    // ggml_backend_buft_alloc_buffer; nullptr when the memory could not be had.
    std::unique_ptr<Buffer> allocate(std::size_t size, ZeroSize zero = ZeroSize::dummy);

protected:
    // The buffer type's own allocation (0 bytes only under ZeroSize::from_type).
    virtual std::unique_ptr<Buffer> allocate_memory(std::size_t size) = 0;
};

class Buffer {
public:
    Buffer(BufferType& type, std::size_t size) : type_(&type), size_(size) {}
    virtual ~Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    BufferType& type() const { return *type_; }
    std::size_t size() const { return size_; }
    std::size_t alignment() const { return type_->alignment(); }
    std::size_t alloc_size(const Tensor& tensor) const { return type_->alloc_size(tensor); }
    BufferUsage usage() const { return usage_; }
    virtual void set_usage(BufferUsage usage) { usage_ = usage; }

    // nullptr for an empty buffer (as ggml_backend_buffer_get_base for size 0).
    virtual void* base() const = 0;
    // Whether bytes behind base() may be read and written (false for fake-base test buffers).
    virtual bool is_addressable() const { return base() != nullptr; }
    virtual void reset() {}
    virtual Status init_tensor(Tensor&) { return Status::success; }

    // Copies into / out of the tensor's bytes at [offset, offset + bytes.size()).
    Status set_tensor(const Tensor& tensor, std::span<const std::byte> bytes, std::size_t offset);
    Status get_tensor(const Tensor& tensor, std::span<std::byte> bytes, std::size_t offset) const;
    Status memset_tensor(const Tensor& tensor, std::uint8_t value, std::size_t offset, std::size_t size);

    // Does [data, data + size) lie inside this buffer?
    bool contains(const void* data, std::size_t size) const;

protected:
    virtual Status write(std::size_t at, std::span<const std::byte> bytes);
    virtual Status read(std::size_t at, std::span<std::byte> bytes) const;
    virtual Status fill(std::size_t at, std::uint8_t value, std::size_t size);

private:
    std::optional<std::size_t> tensor_position(const Tensor& tensor, std::size_t offset, std::size_t size) const;

    BufferType* type_;
    std::size_t size_;
    BufferUsage usage_ = BufferUsage::any;
};

// A zero-sized buffer: no base, nothing to read or write.
class EmptyBuffer final : public Buffer {
public:
    explicit EmptyBuffer(BufferType& type) : Buffer(type, 0) {}
    void* base() const override { return nullptr; }
};

// Real aligned host memory, released with the buffer.
class HostBuffer final : public Buffer {
public:
    // nullptr when the memory could not be allocated.
    static std::unique_ptr<HostBuffer> create(BufferType& type, std::size_t size, std::size_t alignment);
    void* base() const override { return memory_.get(); }

private:
    struct AlignedFree {
        std::size_t alignment;
        void operator()(std::byte* p) const;
    };
    HostBuffer(BufferType& type, std::size_t size, std::unique_ptr<std::byte[], AlignedFree> memory)
        : Buffer(type, size), memory_(std::move(memory)) {}

    std::unique_ptr<std::byte[], AlignedFree> memory_;
};

// Several buffers presented as one (ggml_backend_multi_buffer): what
// alloc_ctx_tensors_from_buft returns when max_size splits the tensors.
class MultiBuffer final : public Buffer {
public:
    MultiBuffer(BufferType& type, std::vector<std::unique_ptr<Buffer>> parts);
    void* base() const override { return nullptr; }
    bool is_addressable() const override { return false; }
    void set_usage(BufferUsage usage) override;
    void reset() override;
    std::span<const std::unique_ptr<Buffer>> parts() const { return parts_; }

private:
    static std::size_t total_size(const std::vector<std::unique_ptr<Buffer>>& parts);
    std::vector<std::unique_ptr<Buffer>> parts_;
};

// ggml's CPU buffer type: host memory, alignment 32, no size limit, alloc size = nbytes.
class CpuBufferType final : public BufferType {
public:
    std::string_view name() const override { return "CPU"; }
    std::size_t alignment() const override { return 32; }

protected:
    std::unique_ptr<Buffer> allocate_memory(std::size_t size) override;
};

// A buffer type configured for tests and for graph files' buffer_types: any alignment,
// max size and alloc-size rule; optional failure injection; optional fake base address
// so that planning graphs of many gigabytes touches no memory.
struct BufferTypeSettings {
    std::string name = "test";
    std::size_t alignment = 32;
    std::size_t max_size = kSizeMax;
    AllocSizeRule alloc_size = AllocSizeRule::nbytes;
    // Sizes a program's buffer type gave particular tensors where no rule above fits, by
    // Tensor::index (captured graph files' `alloc_size`); they win over the rule.
    std::shared_ptr<const std::vector<std::optional<std::size_t>>> tensor_sizes;
    // Bytes a buffer of this type reports beyond what was asked for (llama.cpp's Vulkan_Host
    // adds 32, as ggml's 2024 CPU buffer type did).
    std::size_t buffer_extra = 0;
    bool fake_base = true;
    // Failure injection: the allocation with this 0-based index fails (and every one after
    // it when fail_from_then_on); allocations larger than fail_above fail.
    std::optional<std::size_t> fail_at_allocation;
    bool fail_from_then_on = false;
    std::optional<std::size_t> fail_above;
};

class ConfigurableBufferType final : public BufferType {
public:
    // Fake buffers all start here: non-null and aligned to any power of two up to 2^28.
    static constexpr std::uintptr_t kFakeBase = std::uintptr_t{1} << 28;

    explicit ConfigurableBufferType(BufferTypeSettings settings) : settings_(std::move(settings)) {}

    std::string_view name() const override { return settings_.name; }
    std::size_t alignment() const override { return settings_.alignment; }
    std::size_t max_size() const override { return settings_.max_size; }
    std::size_t alloc_size(const Tensor& tensor) const override;

    const BufferTypeSettings& settings() const { return settings_; }
    void set_settings(BufferTypeSettings settings) { settings_ = std::move(settings); }
    std::size_t allocation_count() const { return allocations_; }  // attempts with size > 0
    std::size_t live_buffers() const { return *live_; }

protected:
    std::unique_ptr<Buffer> allocate_memory(std::size_t size) override;

private:
    bool should_fail(std::size_t size) const;

    BufferTypeSettings settings_;
    std::size_t allocations_ = 0;
    std::shared_ptr<std::size_t> live_ = std::make_shared<std::size_t>(0);
};

// ggml_backend_tensor_alloc: gives `tensor` the bytes at `offset` in `buffer`. Returns
// an empty string on success, else what is wrong (where upstream would abort).
std::string place_tensor(Buffer& buffer, Tensor& tensor, std::size_t offset);
// The same where the caller knows `size` bytes hold the tensor (its alloc size or more):
// a plan knows, and need not ask the buffer type again.
std::string place_tensor(Buffer& buffer, Tensor& tensor, std::size_t offset, std::size_t size);

// ggml_backend_view_init: a view takes its source's buffer, at the source's address plus
// view_offs. Returns an empty string on success, else what is wrong.
std::string init_view(Tensor& view);

} // namespace gallocsim
