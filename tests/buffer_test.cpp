// Buffer types and buffers: the CPU type's real, 64-byte aligned host memory and its
// bounds-checked tensor access; the test type's fake base, counters and failure
// injection; the CUDA alloc-size rule.
#include "reference/buffer.hpp"
#include "reference/builder.hpp"
#include "tests/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>

namespace gallocsim {
namespace {

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

template <typename T, std::size_t N>
std::span<const std::byte> bytes_of(const std::array<T, N>& values) {
    return std::as_bytes(std::span(values));
}

TEST(CpuBufferType, DescribesGgmlsCpuBuffers) {
    CpuBufferType cpu;
    Context context;
    Tensor& t = GraphBuilder(context).new_tensor(DataType::f16, {3, 5});
    EXPECT_EQ(cpu.name(), "CPU");
    EXPECT_EQ(cpu.alignment(), 32u);
    EXPECT_EQ(cpu.max_size(), kSizeMax);
    EXPECT_EQ(cpu.alloc_size(t), 30u);
}

// ggml_aligned_malloc gives host buffers 64-byte alignment, more than the type's 32.
TEST(CpuBufferType, AllocatesRealSixtyFourByteAlignedMemory) {
    CpuBufferType cpu;
    for (std::size_t size : {1u, 100u, 4096u}) {
        auto buffer = cpu.allocate(size);
        ASSERT_NE(buffer, nullptr);
        EXPECT_EQ(buffer->size(), size);
        ASSERT_NE(buffer->base(), nullptr);
        EXPECT_EQ(address(buffer->base()) % 64, 0u) << size;
        EXPECT_TRUE(buffer->is_addressable());
        EXPECT_EQ(&buffer->type(), &cpu);
        EXPECT_EQ(buffer->usage(), BufferUsage::any);
    }
}

TEST(CpuBufferType, ZeroBytesGiveAnEmptyBufferWithNoBase) {
    CpuBufferType cpu;
    auto buffer = cpu.allocate(0);
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(buffer->size(), 0u);
    EXPECT_EQ(buffer->base(), nullptr);
    EXPECT_FALSE(buffer->is_addressable());
}

// A 4-float tensor placed at offset 32 of a 128-byte CPU buffer.
class HostBufferAccess : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(place_tensor(*buffer, t, 32), ""); }

    const std::byte* raw(std::size_t offset) const { return static_cast<const std::byte*>(buffer->base()) + offset; }

    CpuBufferType cpu;
    std::unique_ptr<Buffer> buffer = cpu.allocate(128);
    Context context;
    Tensor& t = GraphBuilder(context).new_tensor(DataType::f32, {4}, "t");
};

TEST_F(HostBufferAccess, PlacedTensorPointsIntoTheBuffer) {
    EXPECT_EQ(t.buffer, buffer.get());
    EXPECT_EQ(address(t.data), address(buffer->base()) + 32);
    EXPECT_TRUE(buffer->contains(t.data, 16));
}

TEST_F(HostBufferAccess, SetThenGetRoundTrips) {
    const std::array<float, 4> values{1.5f, -2.0f, 3.25f, 4.0f};
    ASSERT_EQ(buffer->set_tensor(t, bytes_of(values), 0), Status::success);
    EXPECT_EQ(std::memcmp(raw(32), values.data(), sizeof values), 0);

    std::array<float, 4> back{};
    ASSERT_EQ(buffer->get_tensor(t, std::as_writable_bytes(std::span(back)), 0), Status::success);
    EXPECT_EQ(back, values);

    // Part of the tensor, at a byte offset.
    const std::array<float, 2> middle{7.0f, 8.0f};
    ASSERT_EQ(buffer->set_tensor(t, bytes_of(middle), 4), Status::success);
    ASSERT_EQ(buffer->get_tensor(t, std::as_writable_bytes(std::span(back)), 0), Status::success);
    EXPECT_EQ(back, (std::array<float, 4>{1.5f, 7.0f, 8.0f, 4.0f}));

    ASSERT_EQ(buffer->memset_tensor(t, 0, 8, 8), Status::success);
    ASSERT_EQ(buffer->get_tensor(t, std::as_writable_bytes(std::span(back)), 0), Status::success);
    EXPECT_EQ(back, (std::array<float, 4>{1.5f, 7.0f, 0.0f, 0.0f}));
}

// Nothing outside the tensor's 16 bytes is touched; each attempt reports failed.
TEST_F(HostBufferAccess, AccessOutsideTheTensorFails) {
    std::memset(buffer->base(), 0xAB, buffer->size());
    const std::array<float, 3> three{1.0f, 2.0f, 3.0f};
    std::array<std::byte, 8> out{};

    EXPECT_EQ(buffer->set_tensor(t, bytes_of(three), 8), Status::failed);  // 12 bytes at 8 of 16
    EXPECT_EQ(buffer->get_tensor(t, out, 12), Status::failed);             // 8 bytes at 12
    EXPECT_EQ(buffer->get_tensor(t, std::span(out).first(1), 17), Status::failed);
    EXPECT_EQ(buffer->memset_tensor(t, 0, 0, 17), Status::failed);
    EXPECT_EQ(buffer->get_tensor(t, out, kSizeMax - 2), Status::failed);  // offset + size overflows
    EXPECT_TRUE(std::all_of(raw(0), raw(128), [](std::byte b) { return b == std::byte{0xAB}; }));
}

TEST_F(HostBufferAccess, TensorOfAnotherBufferOrWithoutMemoryFails) {
    auto other = cpu.allocate(128);
    const std::array<float, 1> one{1.0f};
    EXPECT_EQ(other->set_tensor(t, bytes_of(one), 0), Status::failed);

    Tensor unplaced = t;
    unplaced.data = nullptr;
    EXPECT_EQ(buffer->set_tensor(unplaced, bytes_of(one), 0), Status::failed);
}

TEST_F(HostBufferAccess, PlacingPastTheEndIsRefused) {
    Tensor& u = GraphBuilder(context).new_tensor(DataType::f32, {4}, "u");
    EXPECT_EQ(place_tensor(*buffer, u, 120), "tensor u (16 bytes at offset 120) does not fit a buffer of 128 bytes");
    EXPECT_EQ(u.data, nullptr);
    EXPECT_EQ(place_tensor(*buffer, u, 112), "");
}

// The test type's fake base lets plans of any size run without memory; its bytes must
// never be read or written.
TEST(ConfigurableBufferType, FakeBaseIsNotAddressable) {
    ConfigurableBufferType type(test_support::dummy_backend(kSizeMax, 32));
    auto buffer = type.allocate(std::size_t{1} << 40);  // a terabyte costs nothing
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(address(buffer->base()), ConfigurableBufferType::kFakeBase);
    EXPECT_FALSE(buffer->is_addressable());

    Context context;
    Tensor& t = GraphBuilder(context).new_tensor(DataType::f32, {4});
    ASSERT_EQ(place_tensor(*buffer, t, 64), "");
    EXPECT_EQ(address(t.data), ConfigurableBufferType::kFakeBase + 64);
    const std::array<float, 1> one{1.0f};
    EXPECT_EQ(buffer->set_tensor(t, bytes_of(one), 0), Status::failed);
    EXPECT_EQ(buffer->memset_tensor(t, 0, 0, 4), Status::failed);
}

TEST(ConfigurableBufferType, RealMemoryWhenAsked) {
    BufferTypeSettings settings = test_support::dummy_backend(kSizeMax, 128);
    settings.fake_base = false;
    ConfigurableBufferType type(settings);
    auto buffer = type.allocate(256);
    ASSERT_NE(buffer, nullptr);
    EXPECT_TRUE(buffer->is_addressable());
    EXPECT_EQ(address(buffer->base()) % 128, 0u);
}

TEST(ConfigurableBufferType, CountsAllocationsAndLiveBuffers) {
    ConfigurableBufferType type(test_support::dummy_backend(kSizeMax));
    {
        auto a = type.allocate(8);
        auto b = type.allocate(8);
        auto empty = type.allocate(0);  // no backend allocation for zero bytes
        EXPECT_EQ(type.allocation_count(), 2u);
        EXPECT_EQ(type.live_buffers(), 2u);
    }
    EXPECT_EQ(type.live_buffers(), 0u);
}

TEST(ConfigurableBufferType, InjectsFailures) {
    BufferTypeSettings settings = test_support::dummy_backend(kSizeMax);
    settings.fail_at_allocation = 1;
    ConfigurableBufferType once(settings);
    EXPECT_NE(once.allocate(8), nullptr);
    EXPECT_EQ(once.allocate(8), nullptr);
    EXPECT_NE(once.allocate(8), nullptr);
    EXPECT_EQ(once.allocation_count(), 3u);  // failed attempts count too

    settings.fail_from_then_on = true;
    ConfigurableBufferType from_then_on(settings);
    EXPECT_NE(from_then_on.allocate(8), nullptr);
    EXPECT_EQ(from_then_on.allocate(8), nullptr);
    EXPECT_EQ(from_then_on.allocate(8), nullptr);

    BufferTypeSettings limited = test_support::dummy_backend(kSizeMax);
    limited.fail_above = 100;
    ConfigurableBufferType small(limited);
    EXPECT_NE(small.allocate(100), nullptr);
    EXPECT_EQ(small.allocate(101), nullptr);
}

// ggml-vulkan's host buffer type adds 32 bytes to every buffer it allocates (its alloc_buffer:
// size += 32, "behave like the CPU buffer type"): asked 128, the buffer is 160 bytes, and what
// the buffer reports as its size, which ggml_gallocr_get_buffer_size sums, includes the 32.
// A request the padding would wrap past SIZE_MAX fails like any failed allocation.
TEST(ConfigurableBufferType, BufferExtraPadsEveryBuffer) {
    BufferTypeSettings settings = test_support::dummy_backend(kSizeMax, 64);
    settings.buffer_extra = 32;
    ConfigurableBufferType type(settings);
    auto buffer = type.allocate(128);
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(buffer->size(), 160u);
    EXPECT_EQ(type.allocate(kSizeMax - 31), nullptr);
    EXPECT_NE(type.allocate(kSizeMax - 32), nullptr);  // a fake base: nothing is really allocated
}

// ggml-cuda pads quantized rows to a multiple of 512 elements (MATRIX_ROW_PADDING).
TEST(AllocSizeRule, CudaPadsQuantizedRows) {
    Context context;
    GraphBuilder ggml(context);
    Tensor& q = ggml.new_tensor(DataType::q8_0, {32, 2});   // 2 rows of one 34-byte block
    Tensor& full = ggml.new_tensor(DataType::q8_0, {512});  // already a multiple of 512
    Tensor& f = ggml.new_tensor(DataType::f32, {33});
    EXPECT_EQ(nbytes(q), 68u);
    EXPECT_EQ(cuda_alloc_size(q), 68u + 15 * 34);  // the 480 missing elements of one row
    EXPECT_EQ(cuda_alloc_size(full), nbytes(full));
    EXPECT_EQ(cuda_alloc_size(f), 132u);

    BufferTypeSettings settings = test_support::dummy_backend(kSizeMax);
    settings.alloc_size = AllocSizeRule::cuda;
    EXPECT_EQ(ConfigurableBufferType(settings).alloc_size(q), 578u);
    EXPECT_EQ(parse_alloc_size_rule("cuda"), AllocSizeRule::cuda);
    EXPECT_EQ(parse_alloc_size_rule("CUDA"), std::nullopt);
}

} // namespace
} // namespace gallocsim
