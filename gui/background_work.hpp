#pragma once
// Work off the GUI thread: planning a large graph takes seconds, and the window must keep
// repainting (and offer to cancel) meanwhile. run() starts the work on a thread of its own and
// waits for it in a local event loop, so its caller still gets the result in line; small jobs,
// done within the quiet period, never start the loop. A cancelled job runs on with the data it
// owns; its result is dropped and its thread joined later.

#include <QEventLoop>
#include <QString>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace gallocsim::gui {

class BackgroundWork {
public:
    // What a job came to: its result, or the message of what it threw, or neither (cancelled).
    template <typename Result>
    struct Outcome {
        std::optional<Result> result;
        std::optional<QString> error;
    };
    // Told when the event loop starts waiting (true, what) and when it stops (false).
    using BusyHook = std::function<void(bool busy, const QString& what)>;

    BackgroundWork() = default;
    BackgroundWork(const BackgroundWork&) = delete;
    BackgroundWork& operator=(const BackgroundWork&) = delete;
    ~BackgroundWork() {
        for (Worker& worker : workers_) {
            worker.thread.join();
        }
    }

    void set_quiet_period(std::chrono::milliseconds period) { quiet_period_ = period; }
    bool is_waiting() const { return waiting_ != nullptr; }
    // Gives up the job waited for: its run() returns at once with neither result nor error.
    void cancel() {
        if (waiting_ != nullptr) {
            waiting_->cancelled = true;
            waiting_->loop->quit();
        }
    }

    template <typename Work>
    auto run(const QString& what, Work work, const BusyHook& busy) -> Outcome<decltype(work())> {
        using Result = decltype(work());
        struct Job : Shared {
            std::optional<Result> result;
            std::exception_ptr error;
        };
        join_finished();
        cancel();  // a newer job wins over one still waited for
        auto job = std::make_shared<Job>();
        workers_.push_back({std::thread([job, work = std::move(work)]() mutable {
                                try {
                                    job->result.emplace(work());
                                } catch (...) {
                                    job->error = std::current_exception();
                                }
                                const std::lock_guard lock(job->mutex);
                                job->done = true;
                                job->finished.notify_all();
                            }),
                            job});
        if (!wait(*job, what, busy)) {
            return {};
        }
        if (job->error) {
            return {std::nullopt, message_of(job->error)};
        }
        return {std::move(job->result), std::nullopt};
    }

private:
    // What a worker and the GUI thread share: the worker sets `done` last, under the mutex.
    struct Shared {
        std::mutex mutex;
        std::condition_variable finished;
        std::atomic<bool> done = false;
    };
    struct Worker {
        std::thread thread;
        std::shared_ptr<Shared> shared;
    };
    struct Waiting {
        QEventLoop* loop = nullptr;
        bool cancelled = false;
    };

    // Workers whose jobs are over are joined now; a cancelled one still running is kept.
    void join_finished() {
        std::erase_if(workers_, [](Worker& worker) {
            if (!worker.shared->done) {
                return false;
            }
            worker.thread.join();
            return true;
        });
    }

    // True when the job is done and not cancelled.
    bool wait(Shared& job, const QString& what, const BusyHook& busy) {
        {
            std::unique_lock lock(job.mutex);
            job.finished.wait_for(lock, quiet_period_, [&] { return job.done.load(); });
        }
        if (job.done) {
            return true;
        }
        QEventLoop loop;
        Waiting waiting{&loop, false};
        waiting_ = &waiting;
        QTimer poll;
        QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
            if (job.done) {
                loop.quit();
            }
        });
        poll.start(10);
        busy(true, what);
        loop.exec();
        waiting_ = nullptr;
        busy(false, {});
        // Cancelled (even if the job ended meanwhile: the user said so), or quitting.
        return !waiting.cancelled && job.done;
    }

    static QString message_of(const std::exception_ptr& error) {
        try {
            std::rethrow_exception(error);
        } catch (const std::exception& thrown) {
            return QString::fromUtf8(thrown.what());
        } catch (...) {
            return QStringLiteral("an unknown error");
        }
    }

    std::vector<Worker> workers_;  // joined once done, and at destruction
    Waiting* waiting_ = nullptr;   // the job waited for, while one is
    std::chrono::milliseconds quiet_period_{50};
};

} // namespace gallocsim::gui
