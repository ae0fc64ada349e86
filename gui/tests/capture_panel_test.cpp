// A capture folder in the window: opened by a drop (as from the command line or the File
// menu, which all go through MainWindow::open), its calls listed, and picking the
// alloc_graph that kept the reserved plan shows that reserve's planning, then the placement;
// one that kept a plan made on another graph shows its own graph and where its tensors went.
// tests/data/captures/seed/README.md gives the seed capture's calls and why.
#include "gui/capture_panel.hpp"
#include "gui/main_window.hpp"
#include "gui/memory_map_view.hpp"
#include "gui/peak_panel.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/timeline_view.hpp"
#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/planners.hpp"
#include "simulator/trace/capture_replay.hpp"

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMimeData>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QScrollBar>
#include <QTreeWidget>

#include <algorithm>

namespace gallocsim::gui {

class CapturePanelTest : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> window_;
    QStringList messages_;

    SimulationController& controller() { return window_->controller(); }
    QTreeWidget& calls() { return window_->capture_panel().calls(); }
    QStringList row(int i) {
        QStringList cells;
        for (int c = 0; c < CapturePanel::column_count; ++c) {
            cells << calls().topLevelItem(i)->text(c);
        }
        return cells;
    }
    long count(EventKind kind) {
        return std::ranges::count_if(controller().trace().events, [kind](const TraceEvent& e) { return kind_of(e) == kind; });
    }

    static void write_file(const QString& path, const QByteArray& text) {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size()) {
            qFatal("cannot write %s", qPrintable(path));
        }
    }

    void drop_folder(const QString& folder) {
        QMimeData data;
        data.setUrls({QUrl::fromLocalFile(folder)});
        QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window_.get(), &enter);
        QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window_.get(), &drop);
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init() {
        messages_.clear();
        window_ = std::make_unique<MainWindow>(/*saved_settings=*/false);
        window_->set_message_sink([this](const QString& title, const QString& text) { messages_ << title + ": " + text; });
        window_->resize(1280, 800);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(controller().load_example("seed"));
    }

    void cleanup() { window_.reset(); }

    void a_dropped_capture_lists_its_calls() {
        drop_folder(GALLOCSIM_SEED_CAPTURE);
        QVERIFY2(messages_.isEmpty(), qPrintable(messages_.join("\n")));
        QVERIFY(controller().capture() != nullptr);
        QVERIFY(window_->findChild<QDockWidget*>("capture_dock")->isVisible());
        // Session 0: reserve_n, then alloc_graph three times (kept, kept, re-planned);
        // session 1: reserve_n_size, then an alloc_graph that must plan (no buffer yet). The
        // seed graph needs 64 bytes (a and b, 32 each); the re-planned call's graph has 16
        // floats in each (64 + 64 bytes, mul in a's); reserve_n_size allocates nothing.
        QCOMPARE(calls().topLevelItemCount(), 6);
        QCOMPARE(row(0), (QStringList{"0", "0", "reserve_n", "1", "64 B", "plans", ""}));
        QCOMPARE(row(1), (QStringList{"0", "1", "alloc_graph", "1", "64 B", "kept", ""}));
        QCOMPARE(row(3), (QStringList{"0", "3", "alloc_graph", "1", "128 B", "yes", ""}));
        QCOMPARE(row(4), (QStringList{"1", "0", "reserve_n_size", "1", "0 B", "plans", ""}));
        QCOMPARE(row(5), (QStringList{"1", "1", "alloc_graph", "1", "64 B", "yes", ""}));
        // The first call is shown: the reserve's planning alone.
        QVERIFY(controller().selected_call().has_value());
        QCOMPARE(controller().selected_call()->call, std::size_t{0});
        QCOMPARE(count(EventKind::plan_started), 1L);
        QCOMPARE(count(EventKind::tensor_initialised), 0L);
    }

    // The newcomer round saw the dock cut its columns ("reserve_n", then "no (kept the plan)"):
    // in the window's default layout (1440 x 900, the dock 400 pixels wide) every column of the
    // seed capture's list is as wide as its widest text and the list needs no sideways scrolling.
    void the_call_list_fits_its_dock() {
        window_->resize(1440, 900);
        drop_folder(GALLOCSIM_SEED_CAPTURE);
        QCoreApplication::processEvents();
        int total = 0;
        for (int column = 0; column < CapturePanel::column_count; ++column) {
            if (calls().isColumnHidden(column)) {
                continue;  // the verdicts of a live run: no run here
            }
            int needed = calls().fontMetrics().horizontalAdvance(calls().headerItem()->text(column));
            for (int i = 0; i < calls().topLevelItemCount(); ++i) {
                needed = std::max(needed, calls().fontMetrics().horizontalAdvance(calls().topLevelItem(i)->text(column)));
            }
            QVERIFY2(calls().columnWidth(column) >= needed,
                     qPrintable(QStringLiteral("column %1: %2 pixels, its text needs %3").arg(column).arg(calls().columnWidth(column)).arg(needed)));
            total += calls().columnWidth(column);
        }
        // Nothing to scroll sideways: the last column takes what the others leave.
        QCOMPARE(calls().horizontalScrollBar()->maximum(), 0);
        QVERIFY(total > 0);
    }

    void picking_the_alloc_graph_shows_the_reserves_plan_then_the_placement() {
        QVERIFY(window_->open(GALLOCSIM_SEED_CAPTURE));
        calls().setCurrentItem(calls().topLevelItem(1));
        QVERIFY2(messages_.isEmpty(), qPrintable(messages_.join("\n")));
        QCOMPARE(controller().selected_call()->call, std::size_t{1});
        // The note says what trace_call says of that call (capture_replay_test checks its words):
        // it shows the plan of call 0, the reserve_n.
        const CaptureSession& session = controller().capture()->sessions.at(0);
        const CallTrace traced = trace_call(session, 1, *session_profile(session).profile);
        QCOMPARE(traced.plan_call, std::size_t{0});
        // Then the version the replay plans as, in conform's words: this capture's ggml reports 0.21.0,
        // a release between two states (versions.md), so the note says so.
        const VersionMatch match = session_profile(session);
        QVERIFY(!match.exact);
        QCOMPARE(window_->capture_panel().note().text(),
                 QString("Call 1: %1.\n%2.").arg(QString::fromStdString(traced.note), QString::fromStdString(match.note)));
        // One planning (the reserve's: a, b as leafs, mul in place on a), then alloc_graph
        // places the three tensors without planning again.
        const auto& events = controller().trace().events;
        QCOMPARE(kind_of(events.front()), EventKind::plan_started);
        QCOMPARE(count(EventKind::plan_started), 1L);
        QCOMPARE(count(EventKind::leaf_allocated), 2L);
        QCOMPARE(count(EventKind::in_place_reused), 1L);
        QCOMPARE(count(EventKind::tensor_initialised), 3L);
        QCOMPARE(kind_of(events.back()), EventKind::tensor_initialised);
        // At the end mul shares a's offset 0 and b is at 32.
        controller().to_last();
        const SimState& state = controller().state();
        const auto offset = [&](const char* name) {
            const auto& placement = state.tensor(*controller().find_tensor(name)).placement;
            return placement ? placement->offset : std::size_t{999};
        };
        QCOMPARE(offset("a"), std::size_t{0});
        QCOMPARE(offset("b"), std::size_t{32});
        QCOMPARE(offset("mul"), std::size_t{0});
    }

    void picking_an_alloc_graph_that_kept_another_graphs_plan_shows_its_own_graph() {
        // Call 2 places the seed in f16 (graphs/seed-f16.json, "seed-mul-f16") by the plan
        // call 0 made on the f32 seed: shown is call 2's own graph and where its tensors went,
        // a at 0, b at 32, mul at 0 (tests/data/captures/seed/README.md reasons them).
        QVERIFY(window_->open(GALLOCSIM_SEED_CAPTURE));
        calls().setCurrentItem(calls().topLevelItem(2));
        QVERIFY2(messages_.isEmpty(), qPrintable(messages_.join("\n")));
        QCOMPARE(controller().selected_call()->call, std::size_t{2});
        QCOMPARE(controller().graph_name(), QString("seed-mul-f16"));
        QVERIFY(window_->capture_panel().note().text().contains(
            "made on another graph (graphs/seed.json): shown is this call's placement on its own graph (pick call 0 to see "
            "the planning)"));
        // Nothing planned here: alloc_graph only places the three tensors, f16 ones.
        QCOMPARE(count(EventKind::plan_started), 0L);
        QCOMPARE(count(EventKind::tensor_initialised), 3L);
        QCOMPARE(controller().event_count(), std::size_t{3});
        const TensorId a = *controller().find_tensor("a");
        const TensorId b = *controller().find_tensor("b");
        const TensorId mul = *controller().find_tensor("mul");
        QCOMPARE(controller().trace().tensor(a).type, DataType::f16);
        // At the end the memory map shows all three: mul on a's 32 bytes, b in the next 32.
        controller().to_last();
        MemoryMapView& map = window_->memory_map();
        const QRectF a_block = map.block_rect(a);
        const QRectF b_block = map.block_rect(b);
        QVERIFY(!a_block.isEmpty());
        QVERIFY(!b_block.isEmpty());
        QCOMPARE(map.block_rect(mul), a_block);
        QVERIFY(b_block.left() >= a_block.right() - 1.0);
        QCOMPARE(b_block.width(), a_block.width());
        // The timeline draws each, and the graph's tensors hold memory.
        for (const TensorId tensor : {a, b, mul}) {
            QVERIFY(!window_->timeline().span_rect(tensor).isEmpty());
            QCOMPARE(controller().state().tensor(tensor).life, TensorLife::live);
        }
        QVERIFY(controller().describe_tensor(mul).contains("where the plan it kept (made on another graph) puts node 0"));
        // The Peak panel sends the reader to the call that set the size, not "0 bytes".
        window_->peak_panel().show();
        const QString peak = window_->peak_panel().text().toPlainText();
        QVERIFY2(peak.contains("This call planned nothing") && !peak.contains("0 bytes"), qPrintable(peak));
        // Picking call 0, as the note says, shows that planning on the f32 seed.
        calls().setCurrentItem(calls().topLevelItem(0));
        QCOMPARE(controller().graph_name(), QString("seed-mul"));
        QCOMPARE(count(EventKind::plan_started), 1L);
    }

    void a_call_keeps_the_plan_of_its_graph_beside_the_replay_for_the_reports() {
        // Shown is the program's run; the reports (the Statistics and Peak panels) read the
        // plan of the call's graph the loader made beside it. Call 2 only places the f16 seed
        // (no planning in its trace); its graph planned on its own puts a (2 bytes, aligned to
        // 32) at 0, b at 32 and mul in place on a: 64 bytes. Call 3's graph (16 elements, 64
        // bytes a tensor): a at 0, b at 64, mul on a: 128, as the call's own record says.
        QVERIFY(window_->open(GALLOCSIM_SEED_CAPTURE));
        // The window plans by the seed-era rules; the plan beside a call is by the version the
        // replay shows, the capture's own (session_profile), so the reports match the replay.
        QVERIFY(controller().set_profile(seed_era_profile()));
        calls().setCurrentItem(calls().topLevelItem(2));
        QCOMPARE(controller().selected_call()->call, std::size_t{2});
        QCOMPARE(count(EventKind::plan_started), 0L);
        QVERIFY(&controller().plan().trace != &controller().trace());
        const VersionMatch match = session_profile(controller().capture()->sessions[0]);
        const AllocatorProfile* replayed = match.profile != nullptr ? match.profile : &newest_profile();
        QVERIFY(replayed != &seed_era_profile());
        QCOMPARE(controller().trace().profile, replayed);
        QCOMPARE(controller().plan().trace.profile, replayed);
        QCOMPARE(controller().plan().run.plan.buffer_sizes, std::vector<std::size_t>{64});
        QCOMPARE(controller().plan().in_place.size(), std::size_t{1});
        QCOMPARE(controller().comparison().arenas.size(), std::size_t{1});
        QCOMPARE(controller().comparison().arenas[0].ggml_size, std::size_t{64});
        calls().setCurrentItem(calls().topLevelItem(3));
        QCOMPARE(controller().selected_call()->call, std::size_t{3});
        QCOMPARE(controller().plan().run.plan.buffer_sizes, std::vector<std::size_t>{128});
        QCOMPARE(controller().comparison().arenas[0].ggml_size, std::size_t{128});
        QVERIFY2(messages_.isEmpty(), qPrintable(messages_.join("\n")));
    }

    // A capture whose program ran the seeds' 2024 ggml (commit f54604ef, the ggml that
    // llama-cpp-python 0.2.80 vendored): one reserve_n of c = clamp(a), d = c + b, with a and b
    // 16-float inputs (64 bytes each), alignment 32, d the output. The call is planned by the
    // session's version (select_call), and so must be the what-if plans of its why answers (the
    // Peak panel's "without it"), whatever the toolbar says (the newest, here).
    //
    // By ggml-f54604ef's rules CLAMP does not run in place (llama.cpp #27644 made it, in
    // llama.cpp-0c1e570): a at 0, b at 64, c at 128 while a is still live: the buffer's 192
    // bytes are set by c, with a, b and c live; d then takes c's bytes in place (ADD may).
    // Without b (b outside the buffer, as a weight is): a at 0, c at 64, d in place of c: 128
    // bytes. `gallocsim why CAPTURE --json`, which plans a capture by its session's version,
    // gives b's size_without_it as 128. By today's newest rules c runs in place of a and d in
    // place of c, so b's what-if plan is 64 bytes: the answer the GUI gave before it planned
    // the what-ifs by the rules of the plan they question.
    void a_calls_what_if_plans_are_by_its_sessions_version() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("graphs"));
        write_file(dir.filePath("graphs/era.json"), R"({"format": "ggml-graph/1", "name": "clamp-then-add",
            "buffer_types": [{"name": "CPU", "alignment": 32}],
            "tensors": [{"name": "a", "type": "f32", "ne": [16], "flags": ["input"]},
                        {"name": "b", "type": "f32", "ne": [16], "flags": ["input"]},
                        {"name": "c", "type": "f32", "ne": [16], "op": "CLAMP", "src": ["a"]},
                        {"name": "d", "type": "f32", "ne": [16], "op": "ADD", "src": ["c", "b"], "flags": ["output"]}],
            "leafs": ["a", "b"], "nodes": ["c", "d"]})");
        write_file(dir.filePath("session-0.jsonl"),
                   R"({"format": "ggml-session/1", "allocator": 0, "created_by": "ggml_gallocr_new_n", "ggml_version": null, )"
                   R"("ggml_commit": "f54604ef", "pid": 1, "program": ["hand-written"], )"
                   R"("buffer_types": [{"name": "CPU", "alignment": 32, "max_size": null}], "buffers": ["CPU"]})" "\n"
                   R"({"call": 0, "function": "ggml_gallocr_reserve_n", "graph": "graphs/era.json", "nodes": 2, "leafs": 2, )"
                   R"("returned": true, "alloc_size": ["nbytes"], "buffer_sizes": [192], "chunk_sizes": [[192]]})" "\n");
        QVERIFY(window_->open(dir.path()));
        QVERIFY2(messages_.isEmpty(), qPrintable(messages_.join("\n")));
        QCOMPARE(&controller().profile(), &newest_profile());  // the toolbar's
        QCOMPARE(&controller().planned_by(), &seed_era_profile());
        QCOMPARE(controller().trace().profile, &seed_era_profile());

        const std::vector<BufferAnswer>& answers = controller().why_answers();
        QCOMPARE(answers.size(), std::size_t{1});
        const BufferPeak& peak = *answers[0].peak;
        QCOMPARE(peak.size, std::size_t{192});
        const TensorId b = *controller().find_tensor("b");
        const auto live_b = std::ranges::find(peak.live, b, &PeakTensor::tensor);
        QVERIFY(live_b != peak.live.end());
        const auto i = static_cast<std::size_t>(live_b - peak.live.begin());
        QVERIFY(i < answers[0].size_without.size());
        QCOMPARE(answers[0].size_without[i], std::optional<std::size_t>(128));
        // The newest rules' answer, which the Peak panel must not show for this call.
        const TensorId outside[] = {b};
        QCOMPARE(buffer_sizes_without_each(controller().file(), newest_profile(), outside),
                 (std::vector<std::vector<std::size_t>>{{64}}));
    }

    void a_renamed_tensor_shows_the_programs_name() {
        // llama.cpp names both the Q projection and its reshape "Qcur-0"; the capture keeps
        // the first as it is and calls the second "Qcur-0#2", keeping the program's name.
        QVERIFY(window_->open(QString(GALLOCSIM_SEED_CAPTURE) + "/../tiny-llama"));
        QVERIFY2(messages_.isEmpty(), qPrintable(messages_.join("\n")));
        const auto renamed = controller().find_tensor("Qcur-0#2");
        QVERIFY(renamed.has_value());
        QVERIFY(controller().describe_tensor(*renamed).contains("named \"Qcur-0\" by the program"));
        QVERIFY(!controller().describe_tensor(*controller().find_tensor("Qcur-0")).contains("by the program"));
    }

    void opening_a_graph_file_closes_the_capture() {
        QVERIFY(window_->open(GALLOCSIM_SEED_CAPTURE));
        QVERIFY(controller().load_example("seed"));
        QVERIFY(controller().capture() == nullptr);
        QCOMPARE(calls().topLevelItemCount(), 0);
    }

    void a_folder_without_sessions_is_refused() {
        QVERIFY(!window_->open(QString(GALLOCSIM_SEED_CAPTURE) + "/graphs"));
        QCOMPARE(messages_.size(), 1);
        QVERIFY(messages_[0].contains("not a capture (it has no session-*.jsonl)"));
        QCOMPARE(controller().graph_name(), QString("seed-mul"));  // what was shown stays
    }
};

} // namespace gallocsim::gui

QTEST_MAIN(gallocsim::gui::CapturePanelTest)
#include "capture_panel_test.moc"
