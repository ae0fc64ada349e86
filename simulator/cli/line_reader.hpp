#pragma once
// Where an interactive command (walk) reads its lines: a stream (scripts, pipes, tests), or
// at a terminal, the line editor (arrow keys, history, editing) when gallocsim was built
// with libedit.

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

namespace gallocsim::cli {

class LineReader {
public:
    virtual ~LineReader() = default;
    // The next line without its newline; nothing at the end of input (Ctrl-D).
    virtual std::optional<std::string> read(const std::string& prompt) = 0;
};

// Lines from `in`; the prompt is written to `out` only when `show_prompt`.
std::unique_ptr<LineReader> stream_line_reader(std::istream& in, std::ostream& out, bool show_prompt);

// The terminal's line editor on standard input, with history; the stream reader when
// gallocsim was built without one.
std::unique_ptr<LineReader> terminal_line_reader(std::istream& in, std::ostream& out);

} // namespace gallocsim::cli
