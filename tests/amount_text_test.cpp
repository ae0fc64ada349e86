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

} // namespace
} // namespace gallocsim
