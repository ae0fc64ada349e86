#pragma once
// Progress of a long loop on a stream (stderr), shown only once the loop has run for a
// second, so quick commands stay quiet.

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace gallocsim {

class Progress {
public:
    Progress(std::ostream& out, std::string what, std::size_t total)
        : out_(out), what_(std::move(what)), total_(total), start_(Clock::now()) {}
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    ~Progress() {
        if (shown_) {
            out_ << "\r" << what_ << ": done" << std::string(12, ' ') << "\n";
        }
    }

    // Cheap to call every iteration: the clock is read once per 4096 calls.
    void update(std::size_t done) {
        if (++calls_ % 4096 != 0) {
            return;
        }
        const auto now = Clock::now();
        if (now - start_ < std::chrono::seconds(1) || now - last_shown_ < std::chrono::milliseconds(200)) {
            return;
        }
        last_shown_ = now;
        shown_ = true;
        out_ << "\r" << what_ << ": " << done << " of " << total_ << " (" << (total_ ? done * 100 / total_ : 100) << "%)"
             << std::flush;
    }

private:
    using Clock = std::chrono::steady_clock;
    std::ostream& out_;
    std::string what_;
    std::size_t total_;
    Clock::time_point start_;
    Clock::time_point last_shown_{};
    std::size_t calls_ = 0;
    bool shown_ = false;
};

} // namespace gallocsim
