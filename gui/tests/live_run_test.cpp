// A real program watched live in the window: llama.cpp (llama-cpp-python) generating 4 tokens
// with a tiny random-weight model (tests/e2e/generate.py --tiny-model), every token's graph
// through the allocator (LLAMA_GRAPH_REUSE_DISABLE). What is expected is read off the capture
// folder the program wrote (its session file's lines), never off the window.
#include "gui/capture_panel.hpp"
#include "gui/live_run.hpp"
#include "gui/main_window.hpp"
#include "gui/simulation_controller.hpp"
#include "simulator/model/capture_session.hpp"
#include "simulator/trace/capture_replay.hpp"

#include <QFile>
#include <QLabel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <sys/wait.h>

#include <chrono>
#include <thread>

namespace gallocsim::gui {

class LiveRunTest : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> window_;
    std::unique_ptr<QTemporaryDir> work_;
    QStringList messages_;

    SimulationController& controller() { return window_->controller(); }
    QString folder() const { return work_->filePath("capture"); }
    static QStringList generate() {
        return {GALLOCSIM_UPSTREAM_PYTHON, "-u", GALLOCSIM_GENERATE, "--tiny-model", "llama", "--tokens", "4", "--context", "64"};
    }
    // The lines of session-0.jsonl: its header, then one per call ggml has made.
    int session_lines() const {
        QFile file(QDir(folder()).filePath("session-0.jsonl"));
        return file.open(QIODevice::ReadOnly) ? static_cast<int>(file.readAll().count('\n')) : 0;
    }
    void start(const LiveStops& stops) {
        QVERIFY(window_->run_program(generate(), folder(), stops));
        QTRY_VERIFY_WITH_TIMEOUT(controller().live()->waiting() != nullptr || controller().live()->end(), 60000);
        QVERIFY2(messages_.isEmpty(), qPrintable(messages_.join("\n")));
    }
    void run_to_the_end() {
        controller().set_live_stops({});
        controller().continue_live();
        QTRY_VERIFY_WITH_TIMEOUT(controller().live()->end().has_value(), 60000);
        QCOMPARE(controller().live()->end()->exit_code, 0);
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("LLAMA_GRAPH_REUSE_DISABLE", "1");
    }

    void init() {
        messages_.clear();
        work_ = std::make_unique<QTemporaryDir>();
        window_ = std::make_unique<MainWindow>(/*saved_settings=*/false);
        window_->set_message_sink([this](const QString& title, const QString& text) { messages_ << title + ": " + text; });
        window_->resize(1280, 800);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    }

    void cleanup() { window_.reset(); }

    // Stopped before call 0: ggml has not planned it (the session holds its header alone), and
    // the window shows gallocsim's plan of its graph, which can be stepped to its end. Continue:
    // the program plans it, runs to its end, and every call it made is listed with a pass.
    void stops_at_call_0_steps_its_plan_and_goes_on_to_the_end() {
        LiveStops stops;
        stops.each_call = true;
        start(stops);
        const LiveWait* wait = controller().live()->waiting();
        QVERIFY(wait != nullptr && wait->before.has_value());
        QCOMPARE(wait->call, std::size_t{0});
        QCOMPARE(session_lines(), 1);
        QVERIFY(!controller().selected_call().has_value());
        QVERIFY(controller().has_graph());
        QCOMPARE(controller().trace().node_count, wait->before->nodes);
        QVERIFY(controller().event_count() > 0);
        while (controller().position() < controller().event_count()) {
            controller().step_forward();
        }
        QCOMPARE(controller().position(), controller().event_count());
        QVERIFY(window_->capture_panel().note().text().contains("waits before call 0"));

        run_to_the_end();
        const int calls = session_lines() - 1;
        QVERIFY2(calls >= 5, "the scheduler's reserves and a decode per token");
        QCOMPARE(controller().live()->tally().passed, calls);
        QCOMPARE(controller().live()->tally().failed, 0);
        QTreeWidget& list = window_->capture_panel().calls();
        QCOMPARE(list.topLevelItemCount(), calls);
        for (int row = 0; row < calls; ++row) {
            QCOMPARE(list.topLevelItem(row)->text(CapturePanel::check_column), QString("pass"));
        }
        // The newest call is the one shown.
        QVERIFY(controller().selected_call().has_value());
        QCOMPARE(controller().selected_call()->call, static_cast<std::size_t>(calls - 1));
    }

    // A size breakpoint reaches the program: gallocsim predicts call 0 grows the buffer past
    // one byte, so the program stops there; with no stops left it runs to its end.
    void stops_where_a_buffer_would_grow_past_a_size() {
        LiveStops stops;
        stops.tensor = "no tensor has this name";
        stops.past = 1;
        start(stops);
        const LiveWait* wait = controller().live()->waiting();
        QVERIFY(wait != nullptr);
        QCOMPARE(wait->call, std::size_t{0});
        QVERIFY2(wait->why.contains("past 1 B"), qPrintable(wait->why));
        QCOMPARE(session_lines(), 1);
        run_to_the_end();
    }

    // A tensor breakpoint reaches the program: every llama.cpp graph computes the logits,
    // result_output, so the first call plans it.
    void stops_where_a_tensor_is_planned() {
        LiveStops stops;
        stops.tensor = "result_output";
        start(stops);
        const LiveWait* wait = controller().live()->waiting();
        QVERIFY(wait != nullptr);
        QCOMPARE(wait->call, std::size_t{0});
        QCOMPARE(wait->why, QString("the call plans a tensor named result_output"));
        QVERIFY(controller().find_tensor("result_output").has_value());
        run_to_the_end();
    }

    // Quitting while the program waits lets it go on: it finishes on its own, and what it
    // captured replays call by call as conform replays it.
    void quitting_while_stopped_lets_the_program_finish() {
        LiveStops stops;
        stops.each_call = true;
        start(stops);
        QVERIFY(controller().live()->waiting() != nullptr);
        const pid_t pid = controller().live()->pid();
        window_.reset();
        int status = 0;
        pid_t done = 0;
        for (int tries = 0; tries < 600 && done == 0; ++tries) {
            done = ::waitpid(pid, &status, WNOHANG);
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        QCOMPARE(done, pid);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
        const Capture capture = load_capture(folder().toStdString());
        QCOMPARE(capture.sessions.size(), std::size_t{1});
        QVERIFY(capture.sessions[0].calls.size() >= 5);
        for (const CallReplay& replay : replay_session(capture.sessions[0], *session_profile(capture.sessions[0]).profile)) {
            QVERIFY2(replay.outcome == CallOutcome::passed, qPrintable(QString::number(replay.index)));
        }
    }
};

} // namespace gallocsim::gui

QTEST_MAIN(gallocsim::gui::LiveRunTest)
#include "live_run_test.moc"
