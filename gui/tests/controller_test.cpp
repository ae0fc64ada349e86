// The controller on its own: loading, stepping, running to breakpoints, errors that keep
// the shown graph, re-planning with other buffer settings, sessions. The seed example
// (a, b: one f32 each; mul = a*b, output) has these 17 steps (the tests find the ones they
// stop at by kind and tensor, find_step.hpp, so that a new event moves none of them):
//
//    1 plan-started        7 consumer-counted b    13 buffer-allocated
//    2 chunk-created       8 node-started mul      14 plan-finished
//    3 leaf-allocated a    9 in-place-reused mul   15 tensor-initialised a
//    4 leaf-allocated b   10 parent-released a     16 tensor-initialised b
//    5 counting-started   11 parent-released b     17 tensor-initialised mul
//    6 consumer-counted a 12 tensor-freed b
#include "find_step.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/text.hpp"
#include "simulator/trace/explain.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

namespace gallocsim::gui {

using test_support::find_step;

class ControllerTest : public QObject {
    Q_OBJECT

private:
    static std::vector<EventKind> kinds(const Trace& trace) {
        std::vector<EventKind> result;
        for (const TraceEvent& event : trace.events) {
            result.push_back(kind_of(event));
        }
        return result;
    }
    static QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
        const QString path = dir.filePath(name);
        QFile file(path);
        file.open(QIODevice::WriteOnly);
        file.write(text);
        return path;
    }
    // A graph that takes a while to plan (tens of milliseconds: 400 llama layers are about
    // 12,000 nodes); the tests set the quiet period to 0, so its load always shows as busy.
    static ExampleOptions a_big_llama() {
        ExampleOptions options;
        options.layers = 400;
        return options;
    }

private Q_SLOTS:
    // The seed's buffer reaches its 64 bytes when b is allocated at event 4 (a at 0, b at 32,
    // both live, no hole): go_to_peak stops just after that event and the views show the
    // peak until the cursor moves on.
    void go_to_peak_stops_where_the_size_was_set() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        QSignalSpy shown(&controller, &SimulationController::peak_shown);
        controller.go_to_peak();
        QCOMPARE(controller.position(), find_step(controller.trace(), EventKind::leaf_allocated, "b"));
        const BufferPeak* peak = controller.shown_peak();
        QVERIFY(peak != nullptr);
        QCOMPARE(peak->size, 64u);
        QCOMPARE(peak->live.size(), 2u);
        QVERIFY(peak->holes.empty());
        QCOMPARE(shown.count(), 1);
        QCOMPARE(shown.last().at(0).toBool(), true);
        controller.step_forward();
        QVERIFY(controller.shown_peak() == nullptr);
        QCOMPARE(shown.last().at(0).toBool(), false);
    }

    void seed_trace_has_the_seventeen_steps() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        using enum EventKind;
        const std::vector<EventKind> expected{
            plan_started,    chunk_created,   leaf_allocated,     leaf_allocated,    counting_started, consumer_counted,
            consumer_counted, node_started,   in_place_reused,    parent_released,   parent_released,  tensor_freed,
            buffer_allocated, plan_finished,  tensor_initialised, tensor_initialised, tensor_initialised};
        QCOMPARE(kinds(controller.trace()), expected);
        QCOMPARE(controller.position(), 0u);
    }

    // Every position the controller reaches, forward one by one, back one by one or by a
    // jump, shows exactly the state the simulator replays for that position.
    void every_move_shows_the_replayed_state() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        QSignalSpy moved(&controller, &SimulationController::position_changed);
        const Trace& trace = controller.trace();
        for (std::size_t p = 1; p <= trace.size(); ++p) {
            controller.step_forward();
            QCOMPARE(controller.position(), p);
            QVERIFY(controller.state() == replay(trace, p));
            QVERIFY(controller.state_before() == replay(trace, p - 1));
        }
        controller.step_forward();  // at the end: nothing moves, nothing is signalled
        QCOMPARE(moved.count(), static_cast<qsizetype>(trace.size()));
        for (std::size_t p = trace.size(); p-- > 0;) {
            controller.step_back();
            QVERIFY(controller.state() == replay(trace, p));
        }
        const std::size_t mul_in_place = find_step(trace, EventKind::in_place_reused, "mul");
        controller.jump(mul_in_place);
        QVERIFY(controller.state() == replay(trace, mul_in_place));
        QVERIFY(controller.state_before() == replay(trace, mul_in_place - 1));
        QCOMPARE(moved.takeLast().at(0).value<std::size_t>(), mul_in_place);
    }

    void last_event_tensors_are_those_of_the_step_just_taken() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        QVERIFY(controller.last_event_tensors().empty());
        controller.jump(find_step(controller.trace(), EventKind::in_place_reused, "mul"));
        const TensorId mul = *controller.find_tensor("mul");
        const TensorId a = *controller.find_tensor("a");
        QCOMPARE(controller.last_event_tensors(), (std::vector<TensorId>{mul, a}));
    }

    void unlimited_run_stops_at_each_breakpoint_then_at_the_end() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        controller.set_unlimited(true);
        controller.set_tensor_breakpoint(*controller.find_tensor("b"), true);
        // The steps about b (4, 7, 11, 12 and 16 in the list above); mul's in-place reuse is
        // about mul and a only.
        const Trace& trace = controller.trace();
        const std::vector<std::size_t> about_b{
            find_step(trace, EventKind::leaf_allocated, "b"), find_step(trace, EventKind::consumer_counted, "b"),
            find_step(trace, EventKind::parent_released, "b"), find_step(trace, EventKind::tensor_freed, "b"),
            find_step(trace, EventKind::tensor_initialised, "b")};
        QCOMPARE(controller.breakpoint_positions(), about_b);
        for (std::size_t stop : {about_b[0], about_b[1], about_b[2], about_b[3], about_b[4], trace.size()}) {
            controller.run();
            QCOMPARE(controller.position(), stop);
        }
    }

    void timed_run_stops_at_an_event_kind_breakpoint() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        controller.set_speed(1000);
        controller.set_kind_breakpoint(EventKind::tensor_freed, true);
        QSignalSpy running(&controller, &SimulationController::running_changed);
        controller.run();
        QVERIFY(controller.is_running());
        QTRY_VERIFY(!controller.is_running());
        QCOMPARE(controller.position(), find_step(controller.trace(), EventKind::tensor_freed, "b"));
        QCOMPARE(kind_of(*controller.cursor().last_event()), EventKind::tensor_freed);
        QCOMPARE(running.count(), 2);
        // At 1000 steps per second a 40 ms tick moves 40 steps: the 12 steps to b's free took
        // one tick, so the views were told once, not twelve times.
    }

    void a_run_redraws_once_per_tick() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        controller.set_speed(100);  // 4 steps per 40 ms tick
        QSignalSpy moved(&controller, &SimulationController::position_changed);
        controller.run();
        QTRY_VERIFY(!controller.is_running());
        QCOMPARE(controller.position(), controller.event_count());
        // One redraw per tick, the last one short: 4, 8, 12, 16, 17 for the seed's 17 events.
        QCOMPARE(moved.count(), static_cast<qsizetype>((controller.event_count() + 3) / 4));
    }

    void a_broken_file_is_reported_and_the_graph_stays() {
        QTemporaryDir dir;
        const QString path = write(dir, "broken.json", R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
                "tensors": [{"name": "x", "type": "f33", "ne": [4]}], "leafs": ["x"], "nodes": []})");
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        const std::size_t counting = find_step(controller.trace(), EventKind::counting_started);
        controller.jump(counting);
        QSignalSpy errors(&controller, &SimulationController::error_occurred);
        QSignalSpy changed(&controller, &SimulationController::graph_changed);
        QVERIFY(!controller.open_file(path));
        QCOMPARE(errors.count(), 1);
        const QString message = errors.at(0).at(1).toString();
        QVERIFY2(message.contains("broken.json") && message.contains("f33"), qPrintable(message));
        QCOMPARE(changed.count(), 0);
        QCOMPARE(controller.source(), QString("example:seed"));
        QCOMPARE(controller.position(), counting);
    }

    void a_missing_file_and_an_unknown_example_are_reported() {
        SimulationController controller;
        QSignalSpy errors(&controller, &SimulationController::error_occurred);
        QVERIFY(!controller.open_file("/nonexistent/graph.json"));
        QVERIFY(!controller.load_example("no-such-example"));
        QCOMPARE(errors.count(), 2);
        QVERIFY(errors.at(0).at(1).toString().contains("/nonexistent/graph.json"));
        QVERIFY(errors.at(1).at(1).toString().contains("no-such-example"));
        QVERIFY(!controller.has_graph());
    }

    // /dev/zero never ends: the GUI used to read it until it aborted on std::bad_alloc. It is
    // refused as a device before a byte is read, and the graph shown stays.
    void a_device_is_refused_and_the_graph_stays() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        QSignalSpy errors(&controller, &SimulationController::error_occurred);
        QVERIFY(!controller.open_file("/dev/zero"));
        QCOMPARE(errors.count(), 1);
        QCOMPARE(errors.at(0).at(1).toString(), QString("/dev/zero: not a regular file (a device, a pipe or a socket); give a file"));
        QCOMPARE(controller.source(), QString("example:seed"));
    }

    // With at most 32 bytes per buffer, a and b no longer fit one chunk: b gets chunk 1.
    //
    //   chunk 0: | a=mul (32) |        chunk 1: | b (32) |
    void a_small_max_size_forces_a_second_chunk() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        controller.set_tensor_breakpoint(*controller.find_tensor("b"), true);
        const std::size_t a_counted = find_step(controller.trace(), EventKind::consumer_counted, "a");
        controller.jump(a_counted);
        auto types = controller.file().buffer_types;
        types[0].max_size = 32;
        QVERIFY(controller.set_buffer_types(types));
        QCOMPARE(controller.position(), a_counted);  // the cursor stays where it was
        QVERIFY(controller.has_tensor_breakpoint(*controller.find_tensor("b")));
        controller.to_last();
        const TensorState& b = controller.state().tensor(*controller.find_tensor("b"));
        QCOMPARE(b.record.address, (BufferAddress{1, 0}));
        QCOMPARE(controller.timeline().chunks().size(), 2u);
    }

    // Switching the version keeps the decision in view, not the event number: with c = clamp(a)
    // before d = cont(b), llama.cpp-0c1e570 runs c in place of a and ggml-d99724f2 does not, so
    // the events before d's allocation differ in number; the cursor stays on d's allocation.
    void a_version_switch_keeps_the_decision_in_view() {
        SimulationController controller;
        QVERIFY(controller.load_graph(parse_graph_file(R"({"format": "ggml-graph/1",
            "buffer_types": [{"name": "CPU", "alignment": 32}],
            "tensors": [{"name": "a", "type": "f32", "ne": [8], "flags": ["input"]},
                        {"name": "b", "type": "f32", "ne": [8], "flags": ["input"]},
                        {"name": "c", "type": "f32", "ne": [8], "op": "CLAMP", "src": ["a"], "flags": ["output"]},
                        {"name": "d", "type": "f32", "ne": [8], "op": "CONT", "src": ["b"], "flags": ["output"]}],
            "leafs": ["a", "b"], "nodes": ["c", "d"]})", "clamp-then-cont"), "clamp-then-cont"));
        const auto d_allocated = [&] { return find_step(controller.trace(), EventKind::node_allocated, "d"); };
        const std::size_t newest = d_allocated();
        controller.jump(newest);
        QVERIFY(controller.set_profile(*find_profile("ggml-d99724f2")));
        const std::size_t older = d_allocated();
        QVERIFY(older != newest);  // the event numbers moved
        QCOMPARE(controller.position(), older);
    }

    // With a tensor selected, a version switch shows that tensor's placement under the new
    // rules, wherever the cursor was: c = clamp(a) is placed in place of a (in-place-reused)
    // under llama.cpp-0c1e570 and by a node-allocated event under ggml-d99724f2 (CLAMP is not
    // in its in-place set), so the cursor lands just after whichever event gave c its memory.
    void a_version_switch_shows_the_selected_tensors_placement() {
        SimulationController controller;
        QVERIFY(controller.load_graph(clamp_graph(), "clamp"));
        const TensorId c = *controller.find_tensor("c");
        controller.select(c);
        controller.jump(0);
        QVERIFY(controller.set_profile(*find_profile("ggml-d99724f2")));
        QCOMPARE(controller.position(), find_step(controller.trace(), EventKind::node_allocated, "c"));
        controller.to_last();
        QVERIFY(controller.set_profile(*find_profile("llama.cpp-0c1e570")));
        QCOMPARE(controller.position(), find_step(controller.trace(), EventKind::in_place_reused, "c", "a"));
        QCOMPARE(controller.selected(), std::optional<TensorId>(c));
    }

    // a (8 f32, 32 bytes, input) feeds only c = clamp(a), an output; alignment 32. CLAMP
    // runs in place under llama.cpp-0c1e570 (c at a's offset 0) and not under ggml-d99724f2
    // (c at 32, next to a, which is still live when c is placed).
    void changing_the_ggml_version_plans_again() {
        SimulationController controller;
        QVERIFY(controller.load_graph(clamp_graph(), "clamp"));
        QCOMPARE(controller.profile().name, std::string_view("llama.cpp-0c1e570"));
        auto c_offset = [&] {
            controller.to_last();
            return controller.state().tensor(*controller.find_tensor("c")).record.address.offset;
        };
        QCOMPARE(c_offset(), 0u);
        controller.set_tensor_breakpoint(*controller.find_tensor("a"), true);
        QSignalSpy changed(&controller, &SimulationController::profile_changed);
        QVERIFY(controller.set_profile(*find_profile("ggml-d99724f2")));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(c_offset(), 32u);
        QVERIFY(controller.has_tensor_breakpoint(*controller.find_tensor("a")));
        QCOMPARE(controller.trace().profile, find_profile("ggml-d99724f2"));

        // A session keeps the version.
        QTemporaryDir dir;
        const QString path = dir.filePath("clamp.session.json");
        QVERIFY(controller.save_session(path));
        SimulationController restored;
        QVERIFY(restored.open_file(path));
        QCOMPARE(&restored.profile(), find_profile("ggml-d99724f2"));
        restored.to_last();
        QCOMPARE(restored.state().tensor(*restored.find_tensor("c")).record.address.offset, 32u);
    }

    // The reports read the plan the loader made, not a second one: the trace, timeline and
    // lifetimes shown are that plan's own objects, and the comparison follows each re-plan.
    // On the clamp graph (below) ggml's buffer is 32 bytes under llama.cpp-0c1e570 (c in place
    // of a: one block) and 64 under ggml-d99724f2 (c beside a, still live), worked out by hand.
    void the_reports_read_the_plan_the_loader_made() {
        SimulationController controller;
        QVERIFY(controller.load_graph(clamp_graph(), "clamp"));
        QCOMPARE(&controller.plan().trace, &controller.trace());
        QCOMPARE(&controller.plan().timeline, &controller.timeline());
        QCOMPARE(&controller.plan().lifetimes, &controller.lifetimes());
        QCOMPARE(controller.plan().in_place.size(), 1u);
        QCOMPARE(controller.comparison().arenas.size(), 1u);
        QCOMPARE(controller.comparison().arenas[0].ggml_size, 32u);
        QVERIFY(controller.set_profile(*find_profile("ggml-d99724f2")));
        QCOMPARE(&controller.plan().trace, &controller.trace());
        QCOMPARE(controller.plan().in_place.size(), 0u);
        QCOMPARE(controller.comparison().arenas[0].ggml_size, 64u);
        QCOMPARE(controller.why_answers().size(), 1u);
        QCOMPARE(controller.why_answers()[0].arena, &controller.comparison().arenas[0]);
    }

    // a (8 f32, 32 bytes, input) feeds only c = clamp(a), an output; alignment 32.
    static GraphFile clamp_graph() {
        return parse_graph_file(R"({"format": "ggml-graph/1",
            "buffer_types": [{"name": "CPU", "alignment": 32}],
            "tensors": [{"name": "a", "type": "f32", "ne": [8], "flags": ["input"]},
                        {"name": "c", "type": "f32", "ne": [8], "op": "CLAMP", "src": ["a"], "flags": ["output"]}],
            "leafs": ["a"], "nodes": ["c"]})", "clamp");
    }

    // A policy file over the newest state with `rules` (a JSON object).
    static bool write_policy(const QString& path, const char* name, const char* rules) {
        QFile file(path);
        return file.open(QIODevice::WriteOnly) &&
               file.write(QStringLiteral(R"({"format": "gallocsim-policy/1", "name": "%1", "base": "llama.cpp-0c1e570", "rules": %2})")
                              .arg(name, rules)
                              .toUtf8()) > 0;
    }

    // The same clamp graph by a policy file that takes CLAMP out of the in-place ops: c is placed
    // as ggml-d99724f2 places it (at 32, beside a), since that is the only rule the file changes
    // here. A session carries the policy whole, so it plans the same without the file.
    void a_policy_file_plans_like_a_version_and_travels_with_the_session() {
        QTemporaryDir dir;
        const QString policy_path = dir.filePath("no-clamp.json");
        QVERIFY(write_policy(policy_path, "no-clamp", R"({"inplace_ops": {"remove": ["CLAMP"]}})"));
        SimulationController controller;
        QVERIFY(controller.load_graph(clamp_graph(), "clamp"));
        QSignalSpy policies(&controller, &SimulationController::policies_changed);
        QVERIFY(controller.load_policy(policy_path));
        QCOMPARE(policies.count(), 1);
        QCOMPARE(controller.profile().name, std::string_view("no-clamp"));
        QCOMPARE(controller.profile_named("no-clamp"), &controller.profile());
        controller.to_last();
        QCOMPARE(controller.state().tensor(*controller.find_tensor("c")).record.address.offset, 32u);

        const QString session = dir.filePath("clamp.session.json");
        QVERIFY(controller.save_session(session));
        QVERIFY(QFile::remove(policy_path));
        SimulationController restored;
        QVERIFY(restored.open_file(session));
        QCOMPARE(restored.profile().name, std::string_view("no-clamp"));
        QVERIFY(!restored.profile().can_inplace(Op::CLAMP));
        restored.to_last();
        QCOMPARE(restored.state().tensor(*restored.find_tensor("c")).record.address.offset, 32u);
    }

    void a_wrong_policy_file_is_refused_and_the_plan_stays() {
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.json");
        QVERIFY(write_policy(path, "bad", R"({"block_fit": "worst"})"));
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        QSignalSpy errors(&controller, &SimulationController::error_occurred);
        QVERIFY(!controller.load_policy(path));
        QCOMPARE(errors.count(), 1);
        QCOMPARE(errors.at(0).at(1).toString(),
                 path + ": $.rules.block_fit: must be one of best, first, largest, got \"worst\"");
        QCOMPARE(&controller.profile(), &newest_profile());
    }

    // A position is a whole number of events that fits: 1e300 used to be converted to size_t
    // unchecked (undefined behaviour) and opened at Start; -1 and 2.5 are no positions either.
    void a_session_position_out_of_range_is_refused() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        for (const double position : {1e300, -1.0, 2.5}) {
            QJsonObject session = controller.session();
            session["position"] = position;
            SimulationController other;
            QSignalSpy errors(&other, &SimulationController::error_occurred);
            QVERIFY(!other.restore_session(session, "s.json"));
            QCOMPARE(errors.count(), 1);
            QVERIFY2(errors.at(0).at(1).toString().contains("$.position: should be a whole number of events"),
                     qPrintable(errors.at(0).at(1).toString()));
        }
        QJsonObject session = controller.session();
        session["position"] = static_cast<double>(controller.event_count());  // the seed's last event: a position
        SimulationController other;
        QVERIFY(other.restore_session(session, "s.json"));
        QCOMPARE(other.position(), controller.event_count());
    }

    void a_session_naming_an_unknown_ggml_version_is_refused() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        QJsonObject session = controller.session();
        session["ggml_version"] = "ggml-1234";
        SimulationController other;
        QSignalSpy errors(&other, &SimulationController::error_occurred);
        QVERIFY(!other.restore_session(session, "s.json"));
        QCOMPARE(errors.count(), 1);
        const QString message = errors.at(0).at(1).toString();
        QVERIFY2(message.contains("ggml_version") && message.contains("ggml-0a2b6b20"), qPrintable(message));
        QVERIFY(!other.has_graph());
    }

    // A session's graph and policy are documents inside the session: an error in one is named by
    // one JSON path from the session's root, as graph and policy files name theirs from "$"
    // ("sess.json: $.graph: $.tensors[0].ne" glued two). Expected texts: the graph reader
    // refuses a tensor's ne that is no array with "must be an array, got the string \"4\"" at
    // $.tensors[0].ne for the seed's first tensor, a; the policy reader refuses an unknown
    // block_fit at $.rules.block_fit (tests/graph_file_test.cpp, tests/policy_file_test.cpp);
    // here both sit below "$.graph" and "$.policy" of sess.json.
    void a_session_with_a_bad_graph_or_policy_names_one_path() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        QJsonObject bad_graph = controller.session();
        QJsonObject graph = bad_graph["graph"].toObject();
        QJsonArray tensors = graph["tensors"].toArray();
        QJsonObject first = tensors[0].toObject();
        first["ne"] = "4";
        tensors[0] = first;
        graph["tensors"] = tensors;
        bad_graph["graph"] = graph;
        QJsonObject bad_policy = controller.session();
        bad_policy["policy"] = QJsonObject{{"format", "gallocsim-policy/1"},
                                           {"name", "p"},
                                           {"base", "llama.cpp-0c1e570"},
                                           {"rules", QJsonObject{{"block_fit", "worst"}}}};
        const std::pair<QJsonObject, QString> cases[] = {
            {bad_graph, "sess.json: $.graph.tensors[0].ne (tensor 'a'): must be an array, got the string \"4\""},
            {bad_policy, "sess.json: $.policy.rules.block_fit: must be one of best, first, largest, got \"worst\""},
        };
        for (const auto& [session, message] : cases) {
            SimulationController other;
            QSignalSpy errors(&other, &SimulationController::error_occurred);
            QVERIFY(!other.restore_session(session, "sess.json"));
            QCOMPARE(errors.count(), 1);
            QCOMPARE(errors.at(0).at(1).toString(), message);
        }
    }

    void refused_buffer_settings_keep_the_plan() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        QSignalSpy errors(&controller, &SimulationController::error_occurred);
        auto types = controller.file().buffer_types;
        types[0].alignment = 24;  // not a power of two
        QVERIFY(!controller.set_buffer_types(types));
        QCOMPARE(errors.count(), 1);
        QVERIFY2(errors.at(0).at(1).toString().contains("alignment"), qPrintable(errors.at(0).at(1).toString()));
        QCOMPARE(controller.file().buffer_types[0].alignment, 32u);
    }

    void a_session_brings_back_graph_cursor_breakpoints_and_selection() {
        QTemporaryDir dir;
        const QString path = dir.filePath("seed.session.json");
        std::size_t mul_in_place = 0;
        {
            SimulationController controller;
            QVERIFY(controller.load_example("seed"));
            mul_in_place = find_step(controller.trace(), EventKind::in_place_reused, "mul");
            controller.jump(mul_in_place);
            controller.set_tensor_breakpoint(*controller.find_tensor("b"), true);
            controller.set_kind_breakpoint(EventKind::tensor_freed, true);
            controller.select(controller.find_tensor("mul"));
            controller.set_speed(42);
            QVERIFY(controller.save_session(path));
        }
        SimulationController restored;
        QVERIFY(restored.open_file(path));
        QCOMPARE(restored.position(), mul_in_place);
        QCOMPARE(restored.graph_name(), QString("seed-mul"));
        QVERIFY(restored.has_tensor_breakpoint(*restored.find_tensor("b")));
        QVERIFY(restored.has_kind_breakpoint(EventKind::tensor_freed));
        QCOMPARE(restored.selected(), restored.find_tensor("mul"));
        QCOMPARE(restored.speed(), 42);
        QVERIFY(restored.state() == replay(restored.trace(), mul_in_place));
    }

    void a_session_naming_an_unknown_tensor_is_refused() {
        QTemporaryDir dir;
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        QJsonObject session = controller.session();
        session["breakpoints"] = QJsonObject{{"tensors", QJsonArray{"nope"}}};
        const QString path = write(dir, "bad.session.json", QJsonDocument(session).toJson());
        QSignalSpy errors(&controller, &SimulationController::error_occurred);
        QVERIFY(!controller.open_file(path));
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.at(0).at(1).toString().contains("$.breakpoints.tensors: no tensor named \"nope\""));
    }

    void loading_runs_off_the_gui_thread_and_says_so() {
        SimulationController controller;
        controller.set_quiet_period(std::chrono::milliseconds(0));
        QSignalSpy busy(&controller, &SimulationController::busy_changed);
        int ticks = 0;  // the event loop goes on while the worker plans
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, [&] { ++ticks; });
        ticker.start(5);
        QVERIFY(controller.load_example("llama", a_big_llama()));
        QVERIFY(ticks > 0);
        QCOMPARE(busy.count(), 2);
        QCOMPARE(busy.at(0).at(0).toBool(), true);
        QVERIFY(busy.at(0).at(1).toString().startsWith("Planning example:llama"));
        QCOMPARE(busy.at(1).at(0).toBool(), false);
        QVERIFY(!controller.is_loading());
    }

    void a_cancelled_load_keeps_the_graph_shown() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        const std::size_t mul_in_place = find_step(controller.trace(), EventKind::in_place_reused, "mul");
        controller.jump(mul_in_place);
        controller.set_quiet_period(std::chrono::milliseconds(0));
        const auto cancel = connect(&controller, &SimulationController::busy_changed, &controller, [&](bool busy) {
            if (busy) {
                QTimer::singleShot(0, &controller, &SimulationController::cancel_loading);
            }
        });
        QSignalSpy graphs(&controller, &SimulationController::graph_changed);
        QVERIFY(!controller.load_example("llama", a_big_llama()));
        QCOMPARE(graphs.count(), 0);
        QCOMPARE(controller.graph_name(), QString("seed-mul"));
        QCOMPARE(controller.position(), mul_in_place);
        // The window goes on: the seed can be planned again at once.
        disconnect(cancel);
        QVERIFY(controller.load_example("seed"));
    }

    // A name with a right-to-left override (U+202E) and a bell, as a hostile file may hold it:
    // the window shows both as escapes (as the command line does), so the rest of a
    // description or an explanation keeps its direction; the name is found as shown, too.
    void hostile_names_are_shown_as_escapes() {
        QTemporaryDir dir;
        const QString path = write(dir, "hostile.json", R"({"format": "ggml-graph/1", "buffer_types": [{"name": "CPU", "alignment": 32}],
          "tensors": [{"name": "a\u202eb\u0007", "ne": [4], "flags": ["input"]},
                      {"name": "m", "ne": [4], "op": "SCALE", "src": ["a\u202eb\u0007"], "flags": ["output"]}],
          "leafs": ["a\u202eb\u0007"], "nodes": ["m"]})");
        SimulationController controller;
        QVERIFY(controller.open_file(path));
        const auto id = controller.find_tensor(QString::fromUtf8("a\u202eb\a"));
        QVERIFY(id.has_value());
        QCOMPARE(controller.find_tensor("a\\u202Eb\\x07"), id);
        const QString description = controller.describe_tensor(*id);
        QVERIFY2(description.contains("a\\u202Eb\\x07"), qPrintable(description));
        QVERIFY(!description.contains(QChar(0x202E)));
        int naming = 0;
        for (std::size_t e = 0; e < controller.event_count(); ++e) {
            const QString shown = qstr(controller.explanation(e));
            QVERIFY(!shown.contains(QChar(0x202E)) && !shown.contains(QChar('\a')));
            naming += shown.contains("a\\u202Eb\\x07") ? 1 : 0;
        }
        QVERIFY(naming >= 2);  // allocated, and taken over in place or freed
    }

    void a_tensor_description_says_where_and_why() {
        SimulationController controller;
        QVERIFY(controller.load_example("seed"));
        const Trace& trace = controller.trace();
        const std::size_t placed = find_step(trace, EventKind::leaf_allocated, "b");
        const std::size_t freed = find_step(trace, EventKind::tensor_freed, "b");
        controller.jump(placed);
        const QString b = controller.describe_tensor(*controller.find_tensor("b"));
        QVERIFY2(b.contains("chunk 0, offset 32"), qPrintable(b));
        // b is leaf b (node step 0), freed after mul, the only node (node step 1); the seed's
        // trace gives it memory at event 4 and frees it at event 12 (see `gallocsim trace seed`).
        QVERIFY2(b.contains(QString("lifetime: node steps 0 to 1 (given memory by event %1, freed by event %2)").arg(placed).arg(freed)),
                 qPrintable(b));
        // Why b is where it is: what explain() says of the step that placed it.
        const QString why = QString::fromStdString(explain(trace, replay(trace, placed - 1), placed - 1)).toHtmlEscaped();
        QVERIFY2(b.contains(QString("why there (event %1): ").arg(placed) + why), qPrintable(b));
    }
};

} // namespace gallocsim::gui

QTEST_MAIN(gallocsim::gui::ControllerTest)
#include "controller_test.moc"
