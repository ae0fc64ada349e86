#pragma once
// Reading what a user hands gallocsim (graph files, capture sessions and logs, standard input)
// with a bound: a device or an endless pipe (`gallocsim plan /dev/zero`) gets a clear error
// naming it instead of eating memory until the process dies.

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>

namespace gallocsim {

// The most gallocsim reads from one input: 256 MiB, six times the graph of a 4096-layer llama
// (122,884 nodes, 44 MB). GALLOCSIM_MAX_INPUT_MB raises (or lowers) it.
inline constexpr std::size_t kDefaultMaxInputBytes = std::size_t{256} << 20;
// GraphFileError when GALLOCSIM_MAX_INPUT_MB is set to anything but a whole number of MiB.
std::size_t max_input_bytes();

// The whole of a regular file. GraphFileError, naming the file, when it is something else (a
// folder, a device, a pipe), cannot be read, or holds more than max_input_bytes().
std::string read_input_file(const std::filesystem::path& path);

// The whole of a stream (standard input), up to max_input_bytes(); GraphFileError beyond,
// naming `source`.
std::string read_input_stream(std::istream& in, std::string_view source);

} // namespace gallocsim
