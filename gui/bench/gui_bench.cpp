// How the GUI copes with a big graph: llama-style graphs of about 5,000 and 30,000 nodes
// (the benchmark's argument is the number of layers).
//   BM_LoadAndLayOut: plan and record the trace, take checkpoints, explain every event,
//     and let every view lay the graph out (what happens when a file is opened).
//     Goal: under 1 s.
//   BM_StepRedraw: one step forward (or back) and a full repaint of every view that is
//     on screen. Goal: under 16 ms (60 frames a second).
//     The scale issue's goal: at most 16 ms at 30,000 nodes too.
// Runs on the offscreen platform unless QT_QPA_PLATFORM says otherwise.
#include "gui/main_window.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/graph_view.hpp"
#include "gui/memory_map_view.hpp"
#include "gui/timeline_view.hpp"
#include "gui/event_log.hpp"
#include "gui/state_tables.hpp"
#include "simulator/model/examples.hpp"

#include <QApplication>

#include <benchmark/benchmark.h>

namespace {

using namespace gallocsim;
using namespace gallocsim::gui;

constexpr std::int64_t kLayers = 165;       // about 30 nodes a layer: ~5,000 nodes
constexpr std::int64_t kScaleLayers = 1000;  // ~30,000 nodes

GraphFile big_graph(std::int64_t layers = kLayers) {
    ExampleOptions options;
    options.layers = layers;
    options.tokens = 32;
    return make_example("llama", options);
}

void BM_LoadAndLayOut(benchmark::State& state) {
    MainWindow window(/*saved_settings=*/false);
    window.resize(1440, 900);
    std::size_t nodes = 0;
    std::size_t events = 0;
    for (auto _ : state) {
        state.PauseTiming();
        GraphFile file = big_graph();
        nodes = file.graph.nodes.size();
        state.ResumeTiming();
        window.controller().load_graph(std::move(file), "bench");
        events = window.controller().event_count();
    }
    state.counters["nodes"] = static_cast<double>(nodes);
    state.counters["events"] = static_cast<double>(events);
}
BENCHMARK(BM_LoadAndLayOut)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_StepRedraw(benchmark::State& state) {
    MainWindow window(/*saved_settings=*/false);
    window.resize(1440, 900);
    window.show();
    SimulationController& controller = window.controller();
    controller.load_graph(big_graph(state.range(0)), "bench");
    controller.jump(controller.event_count() / 2);
    QApplication::processEvents();
    bool forward = true;
    for (auto _ : state) {
        forward ? controller.step_forward() : controller.step_back();
        forward = !forward;
        // Let the event loop paint what the step made dirty, as it would on screen.
        QApplication::processEvents();
    }
    state.counters["nodes"] = static_cast<double>(controller.file().graph.nodes.size());
}
BENCHMARK(BM_StepRedraw)->Arg(kLayers)->Arg(kScaleLayers)->Unit(benchmark::kMillisecond);

// Each view's share of a step's redraw.
void BM_ViewRedraw(benchmark::State& state) {
    MainWindow window(/*saved_settings=*/false);
    window.resize(1440, 900);
    window.show();
    SimulationController& controller = window.controller();
    controller.load_graph(big_graph(), "bench");
    controller.jump(controller.event_count() / 2);
    QApplication::processEvents();
    QWidget* views[] = {&window.graph_view(), &window.memory_map(), &window.timeline(), &window.event_log(),
                        &window.state_tables()};
    QWidget* view = views[state.range(0)];
    for (auto _ : state) {
        view->repaint();
    }
    state.SetLabel(view->metaObject()->className());
}
BENCHMARK(BM_ViewRedraw)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

void BM_Step(benchmark::State& state) {
    MainWindow window(/*saved_settings=*/false);
    SimulationController& controller = window.controller();
    controller.load_graph(big_graph(), "bench");
    controller.jump(controller.event_count() / 2);
    bool forward = true;
    for (auto _ : state) {
        forward ? controller.step_forward() : controller.step_back();
        forward = !forward;
    }
}
BENCHMARK(BM_Step)->Unit(benchmark::kMillisecond);

// Far out, the whole graph is on screen: the worst case for the graph view alone.
void BM_GraphViewRedrawFitted(benchmark::State& state) {
    MainWindow window(/*saved_settings=*/false);
    window.resize(1440, 900);
    window.show();
    window.controller().load_graph(big_graph(state.range(0)), "bench");
    window.graph_view().fit_to_window();
    QApplication::processEvents();
    for (auto _ : state) {
        window.graph_view().repaint();
    }
}
BENCHMARK(BM_GraphViewRedrawFitted)->Arg(kLayers)->Arg(kScaleLayers)->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
