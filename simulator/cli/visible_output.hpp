#pragma once
// Everything the command line prints goes through visible_text (model/visible_text.hpp), so
// that a name from a hostile file cannot ring, recolour or reverse the terminal. Lines are
// passed on whole (a UTF-8 sequence is never cut); a flush passes on what is pending, so a
// prompt shows before input is read.

#include "simulator/model/visible_text.hpp"

#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace gallocsim::cli {

class VisibleOutput final : public std::streambuf {
public:
    explicit VisibleOutput(std::ostream& target) : target_(target) {}
    VisibleOutput(const VisibleOutput&) = delete;
    VisibleOutput& operator=(const VisibleOutput&) = delete;
    ~VisibleOutput() override { sync(); }

protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) {
            return traits_type::not_eof(c);
        }
        pending_ += traits_type::to_char_type(c);
        if (c == '\n') {
            pass_on();
        }
        return c;
    }
    std::streamsize xsputn(const char* text, std::streamsize count) override {
        pending_.append(text, static_cast<std::size_t>(count));
        if (std::string_view(text, static_cast<std::size_t>(count)).find('\n') != std::string_view::npos) {
            pass_on();
        }
        return count;
    }
    int sync() override {
        pass_on();
        target_.flush();
        return target_ ? 0 : -1;
    }

private:
    void pass_on() {
        if (is_visible_text(pending_)) {
            target_ << pending_;  // as it is, without visible_text's copy
        } else {
            target_ << visible_text(pending_);
        }
        pending_.clear();
    }

    std::ostream& target_;
    std::string pending_;
};

} // namespace gallocsim::cli
