// Reading what a user hands gallocsim, with a bound: what is not a regular file, and what is
// larger than the limit, is refused with the file named, before it is read whole.
#include "simulator/model/graph_file.hpp"
#include "simulator/model/input_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace gallocsim {
namespace {

using ::testing::HasSubstr;

// Sets an environment variable for one test and puts back what was there.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) {
            old_ = old;
        }
        ::setenv(name, value, 1);
    }
    ~ScopedEnv() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

std::string error_of(const std::filesystem::path& path) {
    try {
        read_input_file(path);
    } catch (const GraphFileError& error) {
        return error.what();
    }
    return "";
}

// /dev/zero never ends: reading it whole would grow until the process dies. It is a
// character device, so it is refused without a byte read.
TEST(InputFile, ADeviceIsRefusedByName) {
    EXPECT_EQ(error_of("/dev/zero"), "/dev/zero: not a regular file (a device, a pipe or a socket); give a file");
    EXPECT_THROW(load_graph_file("/dev/zero"), GraphFileError);
}

TEST(InputFile, APipeIsRefusedByName) {
    const auto fifo = std::filesystem::path(::testing::TempDir()) / "gallocsim-input-fifo";
    std::filesystem::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_THAT(error_of(fifo), HasSubstr(": not a regular file"));  // and no open, which would block
    std::filesystem::remove(fifo);
}

TEST(InputFile, FoldersAndMissingFilesAreSaidSo) {
    EXPECT_EQ(error_of("/"), "/: is a folder, not a file");
    EXPECT_EQ(error_of("/no/such/graph.json"), "/no/such/graph.json: no such file");
}

// Not in the sanitized build (clang's ASan + UBSan): their runtime needs a descriptor of its own
// at UBSan's vptr check (it reads the process's mappings) and, without one, reports the stream as
// a bad object. The default and Release suites run it.
#if defined(__SANITIZE_ADDRESS__)  // GCC
#define GALLOCSIM_SANITIZED 1
#elif defined(__has_feature)  // clang
#if __has_feature(address_sanitizer)
#define GALLOCSIM_SANITIZED 1
#endif
#endif
#ifndef GALLOCSIM_SANITIZED
// A file that exists but cannot be opened says why, in the system's words. Root reads every
// file, so the test takes away the process's last free file descriptor instead (RLIMIT_NOFILE
// at the lowest unused descriptor): open() then fails with EMFILE, "Too many open files".
TEST(InputFile, AFileThatCannotBeOpenedSaysWhy) {
    const auto path = std::filesystem::path(::testing::TempDir()) / "gallocsim-input-open";
    std::ofstream(path) << "{}";
    rlimit saved{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
    const int lowest_free = ::dup(0);
    ASSERT_GE(lowest_free, 0);
    ::close(lowest_free);
    rlimit tight = saved;
    tight.rlim_cur = static_cast<rlim_t>(lowest_free);
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &tight), 0);
    const std::string error = error_of(path);
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
    EXPECT_EQ(error, path.string() + ": cannot open file: Too many open files");
}
#endif

// With the limit at 1 MiB, a file of 1 MiB is read and one byte more is refused, naming the
// limit and the knob.
TEST(InputFile, TheLimitIsExactAndNamed) {
    const ScopedEnv limit("GALLOCSIM_MAX_INPUT_MB", "1");
    EXPECT_EQ(max_input_bytes(), 1u << 20);
    const auto path = std::filesystem::path(::testing::TempDir()) / "gallocsim-input-limit";
    std::ofstream(path, std::ios::binary) << std::string(1u << 20, ' ');
    EXPECT_EQ(read_input_file(path).size(), 1u << 20);
    std::ofstream(path, std::ios::app | std::ios::binary) << ' ';
    EXPECT_EQ(error_of(path), path.string() + ": larger than 1 MiB, the most gallocsim reads from one input "
                                              "(GALLOCSIM_MAX_INPUT_MB sets it)");
    std::filesystem::remove(path);
}

// Standard input has no size to look at: the stream is read up to the limit and no further.
TEST(InputFile, AStreamIsCutAtTheLimit) {
    const ScopedEnv limit("GALLOCSIM_MAX_INPUT_MB", "1");
    std::istringstream exactly(std::string(1u << 20, 'x'));
    EXPECT_EQ(read_input_stream(exactly, "standard input").size(), 1u << 20);
    std::istringstream more(std::string((1u << 20) + 1, 'x'));
    EXPECT_THROW(
        {
            try {
                read_input_stream(more, "standard input");
            } catch (const GraphFileError& error) {
                EXPECT_THAT(error.what(), HasSubstr("standard input: larger than 1 MiB"));
                throw;
            }
        },
        GraphFileError);
}

// An empty knob is no knob: the default of 256 MiB. One that is not a positive whole number of
// MiB, or whose bytes would wrap (2^64 / 2^20 = 2^44 MiB, 17592186044416; the most is 2^43 - 1,
// so that twice the bytes still fit), is refused, naming the variable and the range.
TEST(InputFile, AWrongKnobIsRefused) {
    {
        const ScopedEnv limit("GALLOCSIM_MAX_INPUT_MB", "");
        EXPECT_EQ(max_input_bytes(), std::size_t{256} << 20);
    }
    for (const char* value : {"0", "-1", "0.1", "abc", "12x", "99999999999999999999", "17592186044416", "8796093022208"}) {
        const ScopedEnv limit("GALLOCSIM_MAX_INPUT_MB", value);
        EXPECT_THROW(
            {
                try {
                    max_input_bytes();
                } catch (const GraphFileError& error) {
                    EXPECT_EQ(error.what(), "GALLOCSIM_MAX_INPUT_MB=" + std::string(value) +
                                                ": must be a whole number of MiB from 1 to 8796093022207");
                    throw;
                }
            },
            GraphFileError)
            << value;
    }
    const ScopedEnv most("GALLOCSIM_MAX_INPUT_MB", "8796093022207");
    EXPECT_EQ(max_input_bytes(), std::size_t{8796093022207} << 20);
}

} // namespace
} // namespace gallocsim
