// One byte formatter for every command, picture and view. Each value is worked out by hand:
// a unit is 1024 of the one below, and a value that would print as 1024.00 moves up.
#include "simulator/model/amount_text.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace gallocsim {
namespace {

TEST(BinarySize, BytesBelowOneKibibyteStayExact) {
    EXPECT_EQ(binary_size(0), "0 B");
    EXPECT_EQ(binary_size(1023), "1023 B");
}

TEST(BinarySize, EachUnitIs1024OfTheOneBelow) {
    EXPECT_EQ(binary_size(1024), "1.00 KiB");
    EXPECT_EQ(binary_size(1536), "1.50 KiB");                          // 1.5 x 1024
    EXPECT_EQ(binary_size(70 * 1048576 + 524288), "70.50 MiB");        // 70.5 x 2^20
    EXPECT_EQ(binary_size(std::uint64_t{3} << 30), "3.00 GiB");
    // The "4194304.00 MiB": 4194304 x 2^20 = 2^42 = 4 TiB.
    EXPECT_EQ(binary_size(std::uint64_t{4194304} << 20), "4.00 TiB");
    EXPECT_EQ(binary_size(std::uint64_t{5} << 50), "5.00 PiB");
}

TEST(BinarySize, NeverPrints1024OfAUnit) {
    // 2^20 - 1 bytes is 1023.999 KiB, which would round to "1024.00 KiB".
    EXPECT_EQ(binary_size((std::uint64_t{1} << 20) - 1), "1.00 MiB");
    // 2^64 - 1 bytes is just under 16 EiB, the largest unit.
    EXPECT_EQ(binary_size(std::numeric_limits<std::uint64_t>::max()), "16.00 EiB");
}

TEST(ByteCount, ExactBytesWithTheReadableSizeFromOneKibibyte) {
    EXPECT_EQ(byte_count(1), "1 byte");
    EXPECT_EQ(byte_count(64), "64 bytes");
    EXPECT_EQ(byte_count(1023), "1023 bytes");
    EXPECT_EQ(byte_count(1024), "1024 bytes (1.00 KiB)");
    EXPECT_EQ(byte_count(4194304), "4194304 bytes (4.00 MiB)");
}

// Axis ticks, each reasoned by hand: the unit is the one binary_size writes the top in; the
// step is the first of 1, 2, 5, 10, 20, 50, 100, ... (and 0.01, 0.02, 0.05, 0.1, ... above
// bytes) of that unit that is at least top / most_steps; the steps are top / step, rounded up.
TEST(ByteAxis, TicksTheLlamaCaptureEvery100MebibytesNotEvery10To8Bytes) {
    // 322971648 bytes = 308.01 MiB (the 8B capture's buffer); 308.01 / 4 = 77.0: 100 MiB.
    const ByteAxis axis = byte_axis(322971648, 4);
    EXPECT_STREQ(axis.unit_name, "MiB");
    EXPECT_EQ(axis.unit, 1048576U);
    EXPECT_EQ(axis.step, 100.0);
    EXPECT_EQ(axis.steps, 4U);  // 308.01 / 100 = 3.08, rounded up: 0 to 400 MiB
    EXPECT_EQ(axis.label(0), "0");
    EXPECT_EQ(axis.label(1), "100 MiB");
    EXPECT_EQ(axis.label(4), "400 MiB");
    EXPECT_EQ(axis.bytes(1), 104857600.0);  // 100 x 2^20
    // 4 x 10^8 bytes, the old top gridline ("381.47 MiB"): 95.37 MiB a step, so 100 MiB again.
    EXPECT_EQ(byte_axis(400000000, 4).label(4), "400 MiB");
}

TEST(ByteAxis, StepsBelowAUnitHaveTheirDecimals) {
    // 1572864 bytes = 1.5 MiB; 1.5 / 4 = 0.375: 0.5 MiB (one decimal), 3 steps.
    const ByteAxis axis = byte_axis(1572864, 4);
    EXPECT_EQ(axis.step, 0.5);
    EXPECT_EQ(axis.decimals, 1);
    EXPECT_EQ(axis.steps, 3U);
    EXPECT_EQ(axis.label(1), "0.5 MiB");
    EXPECT_EQ(axis.label(2), "1.0 MiB");
    EXPECT_EQ(axis.label(3), "1.5 MiB");
    EXPECT_EQ(axis.bytes(1), 524288.0);  // 2^19
    // 2^30 - 1 bytes is 1023.999999 MiB, written as 1.00 GiB: a GiB axis, 0.25 rounds up to 0.5.
    EXPECT_EQ(byte_axis((std::uint64_t{1} << 30) - 1, 4).label(1), "0.5 GiB");
}

TEST(ByteAxis, TheUnitIsTheTopsAsBinarySizeWritesIt) {
    // 1000 MiB stays in MiB (binary_size: "1000.00 MiB"); 250 a step rounds up to 500.
    const ByteAxis axis = byte_axis(1000 * std::uint64_t{1048576}, 4);
    EXPECT_STREQ(axis.unit_name, "MiB");
    EXPECT_EQ(axis.steps, 2U);
    EXPECT_EQ(axis.label(2), "1000 MiB");
}

TEST(ByteAxis, BytesStepInWholeBytes) {
    // The seed's 64 B: 16 a step rounds up to 20; 64 / 20 = 3.2, so 4 steps, to 80 B.
    const ByteAxis axis = byte_axis(64, 4);
    EXPECT_EQ(axis.step, 20.0);
    EXPECT_EQ(axis.steps, 4U);
    EXPECT_EQ(axis.label(4), "80 B");
    // 3 B in 4 steps would be 0.75 B: a whole byte, 3 steps.
    EXPECT_EQ(byte_axis(3, 4).step, 1.0);
    EXPECT_EQ(byte_axis(3, 4).steps, 3U);
    // Nothing at all still makes an axis: one step of a byte (and no steps asked for is one).
    EXPECT_EQ(byte_axis(0, 4).steps, 1U);
    EXPECT_EQ(byte_axis(0, 0).label(1), "1 B");
}

} // namespace
} // namespace gallocsim
