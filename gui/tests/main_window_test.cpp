// The whole window, driven as a learner drives it: keys for the playback controls, clicks
// on the pictures, files opened and dropped. What each view shows is compared with the
// simulator's own state at the cursor (replayed independently of the controller).
#include "gui/breakpoint_slider.hpp"
#include "gui/event_log.hpp"
#include "gui/graph_view.hpp"
#include "gui/main_window.hpp"
#include "gui/memory_map_view.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/state_tables.hpp"
#include "gui/tensor_color.hpp"
#include "gui/text.hpp"
#include "gui/timeline_view.hpp"
#include "window_fixture.hpp"
#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/planners.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/trace/explain.hpp"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QFile>
#include <QStatusBar>
#include <QTimer>
#include <QWheelEvent>
#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QTableView>
#include <QLineEdit>
#include <QMimeData>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>

namespace gallocsim::gui {

class MainWindowTest : public QObject, private test_support::WindowFixture {
    Q_OBJECT

private:
    // Everything each view shows about the state, against the simulator's replay.
    void check_views_show(std::size_t position) {
        const Trace& trace = controller().trace();
        const SimState expected = replay(trace, position);
        QCOMPARE(controller().position(), position);
        QCOMPARE(window_->step_label().text(),
                 position == 0 ? QString("Start · %1 events").arg(trace.size()) : QString("Event %1 of %2").arg(position).arg(trace.size()));
        QCOMPARE(window_->slider().value(), static_cast<int>(position));

        // Tensor records: one row per tensor, field for field.
        TensorRecordModel& records = window_->state_tables().records();
        QCOMPARE(records.rowCount(), static_cast<int>(trace.tensors.size()));
        for (int row = 0; row < records.rowCount(); ++row) {
            const HashNode& record = expected.tensor(row).record;
            auto cell = [&](int column) { return records.data(records.index(row, column), Qt::DisplayRole); };
            QCOMPARE(cell(TensorRecordModel::children).toInt(), record.children);
            QCOMPARE(cell(TensorRecordModel::views).toInt(), record.views);
            QCOMPARE(cell(TensorRecordModel::allocated).toString(), QString(record.allocated ? "yes" : "no"));
            if (expected.tensor(row).life != TensorLife::none) {
                QCOMPARE(cell(TensorRecordModel::offset).toString(), QString::number(record.address.offset));
                QCOMPARE(cell(TensorRecordModel::chunk).toInt(), record.address.chunk);
            }
        }

        // Free blocks: every chunk's list, in order.
        FreeBlockModel& blocks = window_->state_tables().free_blocks();
        int row = 0;
        for (const AllocatorState& allocator : expected.allocators) {
            for (const Chunk& chunk : allocator.chunks) {
                for (const FreeBlock& block : chunk.free_blocks) {
                    QCOMPARE(blocks.data(blocks.index(row, FreeBlockModel::size), Qt::DisplayRole).toString(),
                             QString::number(block.size));
                    QVERIFY(blocks.data(blocks.index(row, FreeBlockModel::offset), Qt::DisplayRole)
                                .toString()
                                .startsWith(QString::number(block.offset)));
                    ++row;
                }
            }
        }
        QCOMPARE(blocks.rowCount(), row);

        // Memory map and graph: a block for exactly the tensors holding memory.
        for (TensorId tensor = 0; tensor < static_cast<TensorId>(trace.tensors.size()); ++tensor) {
            const TensorLife life = expected.tensor(tensor).life;
            QCOMPARE(!window_->memory_map().block_rect(tensor).isEmpty(), life == TensorLife::live);
            const TensorLook look = window_->graph_view().look_of(tensor);
            if (life == TensorLife::live) {
                QVERIFY(look == TensorLook::live || look == TensorLook::output);
            } else if (life == TensorLife::freed) {
                QCOMPARE(look, TensorLook::freed);
            } else if (life == TensorLife::handed_over) {
                QCOMPARE(look, TensorLook::handed_over);
            }
        }

        // The explanation of the step just taken.
        const QString just = position == 0 ? QString() : QString::fromStdString(explain(trace, replay(trace, position - 1), position - 1));
        if (position > 0) {
            QCOMPARE(window_->event_log().just_happened(), just);
        }
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init() { QVERIFY(open_window()); }

    void cleanup() { window_.reset(); }

    void arrow_keys_step_and_every_view_follows() {
        check_views_show(0);
        for (std::size_t p = 1; p <= controller().event_count(); ++p) {
            QTest::keyClick(window_.get(), Qt::Key_Right);
            check_views_show(p);
        }
        QTest::keyClick(window_.get(), Qt::Key_Right);  // past the end: stays
        check_views_show(controller().event_count());
        for (std::size_t p = controller().event_count(); p-- > 0;) {
            QTest::keyClick(window_.get(), Qt::Key_Left);
            check_views_show(p);
        }
    }

    // The toolbar's version selector lists every profile, starts at the newest and re-plans.
    void the_ggml_version_selector_replans() {
        auto* selector = window_->findChild<QComboBox*>("ggml_version");
        QVERIFY(selector != nullptr);
        QVERIFY(selector->isVisible());
        QCOMPARE(selector->count(), static_cast<int>(allocator_profiles().size()));
        QCOMPARE(selector->currentText(), QString("llama.cpp-0c1e570"));
        selector->setCurrentText("ggml-f54604ef");
        QCOMPARE(controller().profile().name, std::string_view("ggml-f54604ef"));
        QCOMPARE(controller().trace().profile, find_profile("ggml-f54604ef"));
        controller().set_profile(*find_profile("ggml-d99724f2"));  // from elsewhere (an alias): the selector follows
        QCOMPARE(selector->currentText(), QString("ggml-0a2b6b20"));
    }

    // A policy file read joins the selector after the states, selected; choosing a state and
    // then the policy's name again plans by the policy again.
    void a_policy_file_joins_the_version_selector() {
        QTemporaryDir dir;
        const QString path = dir.filePath("first-fit.json");
        {
            QFile policy(path);
            QVERIFY(policy.open(QIODevice::WriteOnly));
            policy.write(R"({"format": "gallocsim-policy/1", "name": "first-fit", "base": "llama.cpp-0c1e570",
                             "rules": {"block_fit": "first"}})");
        }
        auto* selector = window_->findChild<QComboBox*>("ggml_version");
        QVERIFY(controller().load_policy(path));
        QCOMPARE(selector->count(), static_cast<int>(allocator_profiles().size()) + 1);
        QCOMPARE(selector->currentText(), QString("first-fit"));
        QCOMPARE(selector->itemData(selector->count() - 1, Qt::ToolTipRole).toString(), path + ": block_fit best -> first");
        selector->setCurrentText("llama.cpp-0c1e570");
        QCOMPARE(&controller().profile(), &newest_profile());
        selector->setCurrentText("first-fit");
        QCOMPARE(controller().profile().block_fit, BlockFit::first);
        controller().set_profile(newest_profile());
    }

    void home_and_end_jump_and_the_slider_moves_the_cursor() {
        QTest::keyClick(window_.get(), Qt::Key_End);
        check_views_show(controller().event_count());
        QTest::keyClick(window_.get(), Qt::Key_Home);
        check_views_show(0);
        window_->slider().setValue(static_cast<int>(mul_in_place()));
        check_views_show(mul_in_place());
    }

    // After the leafs (step 4) a holds [0, 32) and b [32, 64); after mul's in-place
    // reuse (step 9) the same 32 bytes at 0 are mul's.
    void memory_map_places_blocks_at_their_offsets() {
        controller().jump(leafs_placed());
        const QRectF a = window_->memory_map().block_rect(id("a"));
        const QRectF b = window_->memory_map().block_rect(id("b"));
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        QCOMPARE(a.width(), b.width());  // 32 bytes each
        QCOMPARE(a.right(), b.left());   // b starts where a ends: offset 32
        controller().jump(mul_in_place());
        QVERIFY(window_->memory_map().block_rect(id("a")).isEmpty());
        QCOMPARE(window_->memory_map().block_rect(id("mul")), a);
        QCOMPARE(window_->graph_view().look_of(id("a")), TensorLook::handed_over);
    }

    void space_runs_to_a_breakpoint_set_with_f9() {
        controller().select(id("b"));
        QTest::keyClick(window_.get(), Qt::Key_F9);
        QVERIFY(controller().has_tensor_breakpoint(id("b")));
        // A tick at each step about b: allocated, counted, released, freed, placed.
        const std::vector<std::size_t> about_b{leafs_placed(), step(EventKind::consumer_counted, "b"),
                                               step(EventKind::parent_released, "b"), b_freed(),
                                               step(EventKind::tensor_initialised, "b")};
        QCOMPARE(window_->slider().ticks(), std::vector<int>(about_b.begin(), about_b.end()));
        controller().set_speed(1000);
        QTest::keyClick(window_.get(), Qt::Key_Space);
        QTRY_VERIFY(!controller().is_running());
        check_views_show(about_b[0]);
        QTest::keyClick(window_.get(), Qt::Key_Space);
        QTRY_VERIFY(!controller().is_running());
        check_views_show(about_b[1]);
        QTest::keyClick(window_.get(), Qt::Key_F9);  // off again
        QVERIFY(window_->slider().ticks().empty());
    }

    void clicking_a_block_selects_the_tensor_everywhere() {
        controller().jump(leafs_placed());
        MemoryMapView& map = window_->memory_map();
        QSignalSpy selected(&controller(), &SimulationController::selection_changed);
        QTest::mouseClick(&map, Qt::LeftButton, {}, map.block_rect(id("b")).center().toPoint());
        QCOMPARE(selected.count(), 1);
        QCOMPARE(controller().selected(), std::optional(id("b")));
        QCOMPARE(window_->state_tables().record_view().currentIndex().row(), id("b"));

        TimelineView& timeline = window_->timeline();
        QTest::mouseClick(&timeline, Qt::LeftButton, {}, timeline.span_rect(id("a")).center().toPoint());
        QCOMPARE(controller().selected(), std::optional(id("a")));

        GraphView& graph = window_->graph_view();
        QTest::mouseClick(&graph, Qt::LeftButton, {}, graph.box_rect(id("mul")).center().toPoint());
        QCOMPARE(controller().selected(), std::optional(id("mul")));
    }

    // The seed's a is live from event 3 to its hand-over to mul at event 9, b from event 4
    // until freed at event 12 (`gallocsim trace seed`); both in node steps 0 (leafs) and 1 (mul),
    // where mul takes a's bytes over.
    void the_timeline_counts_node_steps_unless_told_events() {
        controller().jump(leafs_placed());
        TimelineView& timeline = window_->timeline();
        QCOMPARE(timeline.axis(), TimeAxis::node_steps);
        // b over both columns; a over step 0 only, as step 1's column of its bytes is mul's.
        QCOMPARE(timeline.span_rect(id("a")).left(), timeline.span_rect(id("b")).left());
        QCOMPARE(timeline.span_rect(id("b")).width(), 2 * timeline.span_rect(id("a")).width());

        QTest::keyClick(window_.get(), Qt::Key_T, Qt::ControlModifier);
        QCOMPARE(timeline.axis(), TimeAxis::events);
        const QRectF a = timeline.span_rect(id("a")), b = timeline.span_rect(id("b"));
        // a's span runs from its allocation to mul's taking it over (3 to 9), b's from its
        // allocation to its free (4 to 12): 6 events against 8.
        const double a_events = static_cast<double>(mul_in_place() - step(EventKind::leaf_allocated, "a"));
        const double b_events = static_cast<double>(b_freed() - leafs_placed());
        QVERIFY2(std::abs(b.width() / a.width() - b_events / a_events) < 1e-9, qPrintable(QString::number(b.width() / a.width())));
        QVERIFY(b.left() > a.left());

        window_->set_timeline_axis(TimeAxis::node_steps);
        QCOMPARE(timeline.axis(), TimeAxis::node_steps);
    }

    // Zooming along offsets keeps the time axis: the timeline's spans grow taller by the
    // factor and keep their width; the memory map's blocks (offsets are its x) grow wider by
    // it. On a linear scale a span's height is its size times the y scale, so the factor is
    // exact. Shift with the wheel (one notch: 1.2) and Ctrl+Shift+Up (1.25, on the timeline
    // when the view in front has no offsets) do the same.
    void zooming_offsets_keeps_the_time_axis() {
        controller().jump(leafs_placed());
        TimelineView& timeline = window_->timeline();
        timeline.fit_to_window();
        const QRectF before = timeline.span_rect(id("b"));
        timeline.zoom_offsets_by(2.0, timeline.rect().center());
        QRectF after = timeline.span_rect(id("b"));
        QCOMPARE(after.width(), before.width());
        QVERIFY2(std::abs(after.height() - 2 * before.height()) < 1e-6, qPrintable(QString::number(after.height())));

        QWheelEvent wheel(timeline.rect().center(), timeline.mapToGlobal(timeline.rect().center()), QPoint(), QPoint(0, 120),
                          Qt::NoButton, Qt::ShiftModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&timeline, &wheel);
        QVERIFY(std::abs(timeline.span_rect(id("b")).height() - 2.4 * before.height()) < 1e-6);
        QCOMPARE(timeline.span_rect(id("b")).width(), before.width());

        window_->graph_view().setFocus();
        QTest::keyClick(window_.get(), Qt::Key_Up, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(std::abs(timeline.span_rect(id("b")).height() - 3.0 * before.height()) < 1e-6);
        timeline.fit_to_window();

        MemoryMapView& map = window_->memory_map();
        map.fit_to_window();
        const QRectF block = map.block_rect(id("b"));
        map.zoom_offsets_by(2.0, map.rect().center());
        QVERIFY(std::abs(map.block_rect(id("b")).width() - 2 * block.width()) < 1e-6);
        QCOMPARE(map.block_rect(id("b")).height(), block.height());
        map.fit_to_window();
    }

    // Ctrl+0 on a llama of 32 layers (964 nodes, each layer 84 scene pixels apart): fitted
    // uniformly a box would be 150 * (the view's height / ~80,000) < 2 pixels wide. It is
    // squeezed along y only: boxes at least half their width (75 pixels, as the view is
    // wider than half the graph), every node in view, node numbers down the edge.
    void fitting_a_thousand_nodes_keeps_boxes_readable() {
        ExampleOptions layers;
        layers.layers = 32;
        QVERIFY(controller().load_example("llama", layers));
        GraphView& graph = window_->graph_view();
        graph.setFocus();
        QTest::keyClick(window_.get(), Qt::Key_0, Qt::ControlModifier);
        QVERIFY(graph.is_fitted());
        QCOMPARE(graph.scale_x(), 0.5);
        QVERIFY(graph.scale_y() < 0.02);
        const QRectF inside = QRectF(graph.rect());
        for (const GraphBox& box : graph.layout().boxes()) {
            const QRectF r = graph.box_rect(static_cast<TensorId>(box.tensor));
            QVERIFY(inside.contains(r.center()));
            if (!box.is_view) {
                QCOMPARE(r.width(), 75.0);
            }
        }
        QVERIFY(graph.export_png(QDir::temp().filePath("gallocsim-fit-test.png")));  // to look at
        const auto ruler = graph.node_ruler();
        QVERIFY(ruler.size() >= 5);
        for (std::size_t i = 1; i < ruler.size(); ++i) {
            QVERIFY(ruler[i].y - ruler[i - 1].y >= 20);
            QVERIFY(ruler[i].node > ruler[i - 1].node);
            QCOMPARE(ruler[i].node % ruler[1].node == 0 || ruler[1].node == 0, true);
        }
        // Zooming in widens nothing until y catches up with x, then both grow together.
        graph.zoom_by(2.0, graph.rect().center());
        QCOMPARE(graph.scale_x(), 0.5);
        graph.zoom_by(0.5 / graph.scale_y(), graph.rect().center());
        graph.zoom_by(1.25, graph.rect().center());
        QCOMPARE(graph.scale_y(), 0.625);
        QCOMPARE(graph.scale_x(), 0.625);
    }

    // A window with no graph (as at start-up when the first open fails) has everything that
    // acts on a graph off: stepping, the slider, finding, fitting, exporting.
    void without_a_graph_the_controls_are_off() {
        MainWindow empty(/*saved_settings=*/false);
        empty.set_message_sink([](const QString&, const QString&) {});
        const auto check_all = [&](bool on) {
            QCOMPARE(empty.slider().isEnabled(), on);
            QCOMPARE(empty.search_box().isEnabled(), on);
            const std::array<QKeySequence, 5> shortcuts{QKeySequence(Qt::Key_Right), QKeySequence("Ctrl+0"),
                                                        QKeySequence(QKeySequence::Find), QKeySequence("Ctrl+P"),
                                                        QKeySequence("Ctrl+B")};
            for (const QKeySequence& keys : shortcuts) {
                const auto actions = empty.findChildren<QAction*>();
                const auto action = std::ranges::find_if(actions, [&](QAction* a) { return a->shortcut() == keys; });
                QVERIFY2(action != actions.end(), qPrintable(keys.toString()));
                QCOMPARE((*action)->isEnabled(), on);
            }
        };
        check_all(false);
        // And it says so: no "before event 1 of 0", no "the plan is complete".
        QCOMPARE(empty.event_log().just_happened(), QString("Nothing: no graph is open (File > Open, or an example)."));
        QCOMPARE(empty.event_log().happens_next(), QString("Nothing until a graph is open."));
        QTemporaryDir dir;
        QVERIFY(!empty.controller().open_file(write_file(dir, "broken.json", "{ not json")));
        check_all(false);
        QVERIFY(empty.controller().load_example("seed"));
        check_all(true);
    }

    // A graph whose node d runs before c, which it reads: opened, the status bar says so in the
    // command line's words (analysis/graph_order); re-planned by other rules, it does not again.
    void a_graph_read_out_of_order_is_noted_in_the_status_bar() {
        QVERIFY(controller().load_graph(parse_graph_file(R"({"format": "ggml-graph/1",
            "buffer_types": [{"name": "CPU", "alignment": 32}],
            "tensors": [{"name": "a", "ne": [4]}, {"name": "b", "ne": [4]},
                        {"name": "c", "ne": [4], "op": "ADD", "src": ["a", "b"]},
                        {"name": "d", "ne": [4], "op": "MUL", "src": ["c", "a"], "flags": ["output"]}],
            "leafs": ["a", "b"], "nodes": ["d", "c"]})", "early-read"), "early-read"));
        QVERIFY2(window_->statusBar()->currentMessage().contains("Note: d (node 1 of 2) reads c, which runs after it"),
                 qPrintable(window_->statusBar()->currentMessage()));
        controller().set_profile(*find_profile("ggml-f54604ef"));
        QVERIFY2(!window_->statusBar()->currentMessage().contains("Note:"), qPrintable(window_->statusBar()->currentMessage()));
    }

    // Another graph empties the find box; planning the same graph again keeps it.
    void the_find_box_clears_when_another_graph_opens() {
        window_->search_box().setText("mul");
        controller().set_profile(*find_profile("ggml-f54604ef"));
        QCOMPARE(window_->search_box().text(), QString("mul"));
        QVERIFY(controller().load_example("mlp"));
        QCOMPARE(window_->search_box().text(), QString());
    }

    // The example dialog took the keys while it was open; once it closes, End jumps to the
    // last event again even though the find box (where End moves the text cursor) had the
    // focus before.
    void keys_step_again_after_a_dialog_closes() {
        window_->search_box().setFocus();
        QVERIFY(window_->search_box().hasFocus());
        QTimer::singleShot(0, [] {
            if (auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget())) {
                dialog->accept();
            }
        });
        const auto actions = window_->findChildren<QAction*>();
        const auto llama = std::ranges::find_if(actions, [](QAction* a) { return a->text() == "llama…"; });
        QVERIFY(llama != actions.end());
        (*llama)->trigger();
        QCOMPARE(controller().source(), QString("example:llama"));
        QCOMPARE(controller().position(), 0u);
        window_->activateWindow();  // as the platform does when a modal dialog closes
        QVERIFY(QTest::qWaitForWindowActive(window_.get()));
        QVERIFY(QApplication::focusWidget() != nullptr);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_End);  // in the find box: the end of its text
        QCOMPARE(controller().position(), controller().event_count());
    }

    // A 4 KiB input kept to the end (an output too) at offset 0, beside a 16 MiB one and its
    // 16 MiB copy (alignment 32): the chunk is 32 MiB + 4 KiB. Linear, x gets 4 KiB of it: under
    // a pixel. On the logarithmic scale (gui/offset_scale.hpp) x's top is at
    // log2(1 + 4096/1024) / log2(1 + 32772) = 2.32 / 15.0 of the band: more than an eighth, tens of
    // pixels, in the timeline's height and the memory map's width. A logarithm favours low offsets:
    // that is where the small long-lived inputs of a real graph sit. Back to linear, as before.
    void logarithmic_offsets_keep_a_small_tensor_visible_beside_a_huge_one() {
        QVERIFY(controller().load_graph(parse_graph_file(R"({"format": "ggml-graph/1",
            "buffer_types": [{"name": "CPU", "alignment": 32}],
            "tensors": [{"name": "x", "type": "f32", "ne": [1024], "flags": ["input", "output"]},
                        {"name": "y", "type": "f32", "ne": [4194304], "flags": ["input"]},
                        {"name": "b", "type": "f32", "ne": [4194304], "op": "CONT", "src": ["y"], "flags": ["output"]},
                        {"name": "c", "type": "f32", "ne": [1024], "op": "SCALE", "src": ["x"], "flags": ["output"]}],
            "leafs": ["x", "y"], "nodes": ["b", "c"]})", "small-and-huge"), "small-and-huge"));
        controller().to_last();
        QVERIFY(window_->raise_dock("timeline"));
        TimelineView& timeline = window_->timeline();
        MemoryMapView& map = window_->memory_map();
        const TensorId x = id("x");
        const double band_height = timeline.span_rect(x).bottom() - timeline.span_rect(id("b")).top();
        QVERIFY(timeline.span_rect(x).height() < 1);
        QVERIFY(map.block_rect(x).width() <= 1.0);  // drawn a pixel wide at the least
        window_->set_offset_scale(OffsetScaleKind::logarithmic);
        QVERIFY2(timeline.span_rect(x).height() > band_height / 8, qPrintable(QString::number(timeline.span_rect(x).height())));
        QVERIFY(map.block_rect(x).width() > 20);
        window_->set_offset_scale(OffsetScaleKind::linear);
        QVERIFY(timeline.span_rect(x).height() < 1);
    }

    // The offset axis: in the seed's one 64-byte chunk, ticks at 0, then every power of two
    // bytes that keeps them 28 pixels apart, up the band; offset 0 is where a (at offset 0)
    // starts and b (at offset 32) starts at the 32-byte tick when there is one.
    void the_timeline_has_an_offset_axis() {
        controller().jump(leafs_placed());
        QVERIFY(window_->raise_dock("timeline"));
        TimelineView& timeline = window_->timeline();
        const auto ticks = timeline.offset_ticks();
        QVERIFY(ticks.size() >= 2);
        QCOMPARE(ticks.front().offset, 0u);
        QCOMPARE(ticks.front().y, timeline.span_rect(id("a")).bottom());
        const std::size_t every = ticks[1].offset;
        QVERIFY(std::has_single_bit(every));
        for (std::size_t i = 1; i < ticks.size(); ++i) {
            QCOMPARE(ticks[i].offset - ticks[i - 1].offset, every);
            QVERIFY(ticks[i - 1].y - ticks[i].y >= 28);  // upwards, apart
        }
        QVERIFY(ticks.back().offset <= 64 && 64 - ticks.back().offset < every);
        if (every <= 32) {
            const auto at_32 = std::ranges::find(ticks, 32u, &TimelineView::OffsetTick::offset);
            QVERIFY(at_32 != ticks.end());
            QCOMPARE(at_32->y, timeline.span_rect(id("b")).bottom());
        }
    }

    void searching_by_name_selects_the_tensor() {
        QTest::keyClick(window_.get(), Qt::Key_F, Qt::ControlModifier);
        QVERIFY(window_->search_box().hasFocus());
        QTest::keyClicks(&window_->search_box(), "mul");
        QTest::keyClick(&window_->search_box(), Qt::Key_Return);
        QCOMPARE(controller().selected(), std::optional(id("mul")));
    }

    void a_broken_file_shows_an_error_and_keeps_the_graph() {
        QTemporaryDir dir;
        const QString path = write_file(dir, "broken.json", "{\"format\": \"ggml-graph/1\", \"tensors\": [");
        controller().jump(mul_in_place());
        QVERIFY(!window_->open(path));
        QCOMPARE(messages_.size(), 1u);
        QCOMPARE(messages_[0].title, QString("Cannot read the graph file"));
        QVERIFY2(messages_[0].text.contains("broken.json"), qPrintable(messages_[0].text));
        check_views_show(mul_in_place());
        QCOMPARE(controller().graph_name(), QString("seed-mul"));
    }

    void a_dropped_file_is_opened() {
        QTemporaryDir dir;
        const QString path = write_file(
            dir, "dropped.json", QByteArray::fromStdString(graph_file_to_json(controller().file())).replace("seed-mul", "dropped-graph"));
        QMimeData data;
        data.setUrls({QUrl::fromLocalFile(path)});
        QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window_.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window_.get(), &drop);
        QVERIFY2(messages_.empty(), messages_.empty() ? "" : qPrintable(messages_[0].text));
        QCOMPARE(controller().graph_name(), QString("dropped-graph"));
    }

    void export_writes_a_png_and_an_svg() {
        controller().jump(mul_in_place());
        QTemporaryDir dir;
        for (CanvasView* view : std::initializer_list<CanvasView*>{&window_->graph_view(), &window_->memory_map(),
                                                                    &window_->timeline()}) {
            const QString png = dir.filePath("view.png");
            const QString svg = dir.filePath("view.svg");
            QVERIFY(window_->export_view(*view, png));
            QVERIFY(window_->export_view(*view, svg));
            const QImage image(png);
            QVERIFY(!image.isNull());
            QCOMPARE(image.size(), view->size() * view->devicePixelRatio());
            QSvgRenderer renderer(svg);
            QVERIFY(renderer.isValid());
            QCOMPARE(renderer.viewBox(), QRect(QPoint(0, 0), view->size()));
        }
        // The memory map's PNG shows b's block in b's colour.
        const QString png = dir.filePath("map.png");
        controller().jump(leafs_placed());
        QVERIFY(window_->export_view(window_->memory_map(), png));
        const QPoint inside = window_->memory_map().block_rect(id("b")).center().toPoint();
        QCOMPARE(QImage(png).pixel(inside * window_->memory_map().devicePixelRatio()), tensor_color("b").rgb());
    }

    void a_session_round_trips_through_the_window() {
        QTemporaryDir dir;
        const QString path = dir.filePath("s.json");
        controller().jump(b_freed());
        controller().select(id("b"));
        QVERIFY(controller().save_session(path));
        controller().load_example("seed");
        QCOMPARE(controller().position(), 0u);
        QVERIFY(window_->open(path));
        check_views_show(b_freed());
        QCOMPARE(controller().selected(), std::optional(id("b")));
    }
};

} // namespace gallocsim::gui

QTEST_MAIN(gallocsim::gui::MainWindowTest)
#include "main_window_test.moc"
