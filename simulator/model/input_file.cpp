#include "simulator/model/input_file.hpp"

#include "simulator/model/graph_file.hpp"

#include <charconv>
#include <cstdlib>
#include <cerrno>
#include <fstream>
#include <system_error>
#include <istream>

namespace gallocsim {
namespace {

std::string too_large(std::string_view source) {
    return std::string(source) + ": larger than " + std::to_string(max_input_bytes() >> 20) +
           " MiB, the most gallocsim reads from one input (GALLOCSIM_MAX_INPUT_MB sets it)";
}

} // namespace

std::size_t max_input_bytes() {
    const char* text = std::getenv("GALLOCSIM_MAX_INPUT_MB");
    if (text == nullptr || *text == '\0') {
        return kDefaultMaxInputBytes;
    }
    std::size_t megabytes = 0;
    const std::string_view value(text);
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), megabytes);
    // A value that is not a whole number of MiB, or whose bytes would not fit, is refused:
    // silently keeping the default would read what the user meant to refuse, or refuse what
    // they meant to read.
    constexpr std::size_t most = SIZE_MAX >> 21;
    if (error != std::errc{} || end != value.data() + value.size() || megabytes == 0 || megabytes > most) {
        throw GraphFileError("GALLOCSIM_MAX_INPUT_MB=" + std::string(value) + ": must be a whole number of MiB from 1 to " +
                             std::to_string(most));
    }
    return megabytes << 20;
}

std::string read_input_file(const std::filesystem::path& path) {
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (error || !std::filesystem::exists(status)) {
        throw GraphFileError(path.string() + ": no such file");
    }
    if (std::filesystem::is_directory(status)) {
        throw GraphFileError(path.string() + ": is a folder, not a file");
    }
    if (!std::filesystem::is_regular_file(status)) {
        throw GraphFileError(path.string() + ": not a regular file (a device, a pipe or a socket); give a file");
    }
    const auto size = std::filesystem::file_size(path, error);
    if (!error && size > max_input_bytes()) {
        throw GraphFileError(too_large(path.string()));
    }
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        // The system's reason (permission denied, too many open files...), where it gave one.
        const int reason = errno;
        throw GraphFileError(path.string() + ": cannot open file" +
                             (reason != 0 ? ": " + std::generic_category().message(reason) : std::string()));
    }
    return read_input_stream(in, path.string());  // bounded again: the file may grow while read
}

std::string read_input_stream(std::istream& in, std::string_view source) {
    const std::size_t limit = max_input_bytes();
    std::string text;
    char block[1 << 16];
    while (in.read(block, sizeof block) || in.gcount() > 0) {
        const auto got = static_cast<std::size_t>(in.gcount());
        if (got > limit - text.size()) {
            throw GraphFileError(too_large(source));
        }
        text.append(block, got);
    }
    if (in.bad()) {
        throw GraphFileError(std::string(source) + ": cannot be read");
    }
    return text;
}

} // namespace gallocsim
