#include "simulator/cli/line_reader.hpp"

#include <cstdlib>
#include <istream>
#include <ostream>

#ifdef GALLOCSIM_HAVE_LIBEDIT
#include <editline/readline.h>
#endif

namespace gallocsim::cli {

namespace {

class StreamLineReader final : public LineReader {
public:
    StreamLineReader(std::istream& in, std::ostream& out, bool show_prompt)
        : in_(in), out_(out), show_prompt_(show_prompt) {}

    std::optional<std::string> read(const std::string& prompt) override {
        if (show_prompt_) {
            out_ << prompt << std::flush;
        }
        std::string line;
        if (!std::getline(in_, line)) {
            if (show_prompt_) {
                out_ << "\n";  // Ctrl-D leaves the cursor after the prompt
            }
            return std::nullopt;
        }
        return line;
    }

private:
    std::istream& in_;
    std::ostream& out_;
    bool show_prompt_;
};

#ifdef GALLOCSIM_HAVE_LIBEDIT
class EditLineReader final : public LineReader {
public:
    explicit EditLineReader(std::ostream& out) : out_(out) {}

    std::optional<std::string> read(const std::string& prompt) override {
        char* raw = readline(prompt.c_str());
        if (raw == nullptr) {
            out_ << "\n" << std::flush;  // Ctrl-D leaves the cursor after the prompt: the shell's would follow it
            return std::nullopt;
        }
        std::string line(raw);
        std::free(raw);
        if (!line.empty()) {
            add_history(line.c_str());
        }
        return line;
    }

private:
    std::ostream& out_;
};
#endif

} // namespace

std::unique_ptr<LineReader> stream_line_reader(std::istream& in, std::ostream& out, bool show_prompt) {
    return std::make_unique<StreamLineReader>(in, out, show_prompt);
}

std::unique_ptr<LineReader> terminal_line_reader(std::istream& in, std::ostream& out) {
#ifdef GALLOCSIM_HAVE_LIBEDIT
    (void)in;
    return std::make_unique<EditLineReader>(out);
#else
    return stream_line_reader(in, out, /*show_prompt=*/true);
#endif
}

} // namespace gallocsim::cli
