// gallocsim-gui [FILE|DIR]: step through ggml's graph memory planning: a graph file, a saved
// session, or a capture folder (its calls listed to pick from). With nothing given, the seed
// walkthrough's example is loaded. --at-event or --at-step with --screenshot render the window
// at a position into a PNG and exit (for documentation images).
// gallocsim-gui --run [--pause] [stops] -- PROGRAM [ARGS]: runs the program under the capture
// and watches it live; with --screenshot, the window is saved where the program first stops
// (or when it ends), then the program goes on to its end before the GUI exits.
#include "gui/live_run.hpp"
#include "gui/main_window.hpp"
#include "gui/simulation_controller.hpp"
#include "reference/version_map.hpp"

#include <QApplication>
#include <QSize>
#include <QCoreApplication>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>

#include <iostream>
#include <optional>
#include <utility>

namespace {

using gallocsim::gui::MainWindow;
using gallocsim::gui::SimulationController;

// "K" (a call of session 0) or "S:K", both counted from 0, as the Capture dock lists them.
// --call K or S:K: the session (0 unless given) and the call, or nothing for a malformed value.
std::optional<std::pair<qulonglong, qulonglong>> parse_call(const QString& text) {
    const QStringList parts = text.split(':');
    bool session_ok = true, call_ok = false;
    const qulonglong session = parts.size() == 2 ? parts[0].toULongLong(&session_ok) : 0;
    const qulonglong call = parts.back().toULongLong(&call_ok);
    if (parts.size() > 2 || !session_ok || !call_ok) {
        return std::nullopt;
    }
    return std::pair(session, call);
}

void name_application() {
    QCoreApplication::setOrganizationName("gallocsim");
    QCoreApplication::setApplicationName("gallocsim-gui");
    QCoreApplication::setApplicationVersion(GALLOCSIM_VERSION);
}

// The command line: every option, declared once.
struct Options {
    QCommandLineParser parser;
    const QCommandLineOption example{"example", "open a built-in example instead of a file", "name"};
    const QCommandLineOption event{"at-event", "move the cursor to this event after loading (0: the start)", "K"};
    QCommandLineOption old_step{"step", "the old name of --at-event", "K"};
    const QCommandLineOption step{"at-step", "move the cursor to the end of this node step (0: leafs and inputs; i: node i)", "I"};
    const QCommandLineOption axis{"timeline-axis", "the timeline's x axis: steps (node steps, the default) or events", "axis", "steps"};
    const QCommandLineOption offsets{"offsets", "offsets in the timeline and the memory map: linear (the default) or log", "scale",
                                     "linear"};
    const QCommandLineOption peak{"peak", "go to where the largest buffer's size was set, and show the Peak panel"};
    const QCommandLineOption screenshot{"screenshot", "save the window as a PNG and exit", "png"};
    const QCommandLineOption size{"size", "window size for --screenshot (default 1440x900)", "WxH", "1440x900"};
    const QCommandLineOption raise{"raise", "bring a dock to the front: timeline, state, statistics or peak", "dock"};
    const QCommandLineOption version{QStringList{"ggml-version", "policy"},
                                     "plan by the rules of this ggml version, or of a policy file (docs/policies.md; "
                                     "default: the newest version)",
                                     "name"};
    const QCommandLineOption call{"call", "in a capture folder, pick this call: K (session 0) or S:K", "call"};
    const QCommandLineOption run{"run", "run the program given after -- under the capture and watch its calls live"};
    const QCommandLineOption out{"out", "with --run: the capture folder (default: a new gallocsim-run-* in the temporary folder)",
                                 "dir"};
    const QCommandLineOption pause{"pause", "with --run: the program waits before ggml plans each call, until Continue"};
    const QCommandLineOption stop_tensor{"stop-at-tensor", "with --run: the program waits before a call that plans this tensor",
                                         "name"};
    const QCommandLineOption stop_past{"stop-past",
                                       "with --run: the program waits before a call gallocsim predicts grows a buffer past this "
                                       "many bytes",
                                       "bytes"};
    const QCommandLineOption stop_failure{"stop-at-failure", "with --run: the program waits after a call that failed"};

    Options() {
        parser.setApplicationDescription("Step through ggml's graph memory allocator.");
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addPositionalArgument("file", "graph file (ggml-graph/1), saved session or capture folder to open", "[FILE|DIR]");
        old_step.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOptions({example, event, old_step, step, axis, offsets, peak, screenshot, size, raise, version, call, run, out,
                           pause, stop_tensor, stop_past, stop_failure});
    }
    QString value(const QCommandLineOption& option) const { return parser.value(option); }
    bool has(const QCommandLineOption& option) const { return parser.isSet(option); }
};

// A screenshot's sides: at least a pixel, and small enough that the image fits in memory (a
// side of 16384 pixels makes a 1 GiB image at most).
constexpr int kLargestSide = 16384;

std::optional<QSize> screenshot_size(const Options& options) {
    const QStringList sides = options.value(options.size).split('x');
    if (sides.size() != 2) {
        return std::nullopt;
    }
    bool width_ok = false;
    bool height_ok = false;
    const int width = sides[0].toInt(&width_ok);
    const int height = sides[1].toInt(&height_ok);
    if (!width_ok || !height_ok || width < 1 || height < 1 || width > kLargestSide || height > kLargestSide) {
        return std::nullopt;
    }
    return QSize(width, height);
}

// Flags first, without a display: --help, --version and flag errors work anywhere (QApplication
// aborts when there is no display to connect to). An exit code, or nothing to go on.
std::optional<int> parse_flags(Options& options, int argc, char** argv) {
    QCoreApplication flags_only(argc, argv);
    name_application();
    if (!options.parser.parse(QCoreApplication::arguments())) {
        std::cerr << "gallocsim-gui: " << options.parser.errorText().toStdString() << " (gallocsim-gui --help lists the options)\n";
        return 2;
    }
    if (options.parser.isSet("help")) {
        options.parser.showHelp(0);
    }
    if (options.parser.isSet("version")) {
        options.parser.showVersion();
    }
    if (options.has(options.size) && !screenshot_size(options)) {
        std::cerr << "gallocsim-gui: --size " << options.value(options.size).toStdString() << ": give WxH, each from 1 to "
                  << kLargestSide << " pixels\n";
        return 2;
    }
    return std::nullopt;
}

// --ggml-version/--policy: a state, a ggml version, or a policy file, read as the command line reads it.
bool choose_rules(const Options& options, SimulationController& controller) {
    if (!options.has(options.version)) {
        return true;
    }
    const std::string value = options.value(options.version).toStdString();
    try {
        return controller.use_rules(gallocsim::resolve_rules(value));
    } catch (const gallocsim::UnknownRules& unknown) {
        std::cerr << "gallocsim-gui: --ggml-version " << value << ": " << unknown.what() << "\n";
    } catch (const gallocsim::GraphFileError& error) {
        std::cerr << "gallocsim-gui: " << error.what() << "\n";
    }
    return false;
}

// --run and its stops: the program after --, watched live.
std::optional<gallocsim::gui::LiveStops> live_stops(const Options& options) {
    gallocsim::gui::LiveStops stops;
    stops.each_call = options.has(options.pause);
    stops.tensor = options.value(options.stop_tensor);
    stops.at_failure = options.has(options.stop_failure);
    if (options.has(options.stop_past)) {
        bool ok = false;
        stops.past = options.value(options.stop_past).toULongLong(&ok);
        if (!ok) {
            std::cerr << "gallocsim-gui: --stop-past " << options.value(options.stop_past).toStdString()
                      << ": give a number of bytes\n";
            return std::nullopt;
        }
    }
    return stops;
}

// The file, folder or example to show, and the capture call to pick in it.
// `run_folder`: where --run captures (empty: --out, else a new folder in the temporary folder).
bool open_input(const Options& options, MainWindow& window, const QString& run_folder) {
    SimulationController& controller = window.controller();
    if (options.has(options.run)) {
        const auto stops = live_stops(options);
        if (options.parser.positionalArguments().isEmpty()) {
            std::cerr << "gallocsim-gui: --run: give the program after --, as in gallocsim-gui --run -- PROGRAM ARGS\n";
            return false;
        }
        const QString folder = options.has(options.out) ? options.value(options.out) : run_folder;
        return stops && window.run_program(options.parser.positionalArguments(), folder, *stops);
    }
    const bool loaded = options.parser.positionalArguments().isEmpty()
                            ? controller.load_example(options.has(options.example) ? options.value(options.example) : "seed")
                            : window.open(options.parser.positionalArguments().front());
    if (!loaded || !options.has(options.call)) {
        return loaded;
    }
    const auto call = parse_call(options.value(options.call));
    if (!call) {
        std::cerr << "gallocsim-gui: --call " << options.value(options.call).toStdString()
                  << ": give K or S:K (session S, call K, counted from 0)\n";
        return false;
    }
    return controller.select_call(call->first, call->second);  // the controller says why when it cannot
}

// --timeline-axis, --offsets, --at-event (--step), --at-step, --peak and --raise, once a graph is shown.
bool arrange_views(const Options& options, MainWindow& window, bool loaded) {
    SimulationController& controller = window.controller();
    if (options.has(options.axis)) {
        const QString axis = options.value(options.axis);
        if (axis != "steps" && axis != "events") {
            std::cerr << "gallocsim-gui: --timeline-axis " << axis.toStdString() << ": give steps or events\n";
            return false;
        }
        window.set_timeline_axis(axis == "events" ? gallocsim::TimeAxis::events : gallocsim::TimeAxis::node_steps);
    }
    if (options.has(options.offsets)) {
        const QString scale = options.value(options.offsets);
        if (scale != "linear" && scale != "log") {
            std::cerr << "gallocsim-gui: --offsets " << scale.toStdString() << ": give linear or log\n";
            return false;
        }
        window.set_offset_scale(scale == "log" ? gallocsim::gui::OffsetScaleKind::logarithmic
                                               : gallocsim::gui::OffsetScaleKind::linear);
    }
    for (const QCommandLineOption* option : {&options.event, &options.old_step}) {
        if (loaded && options.has(*option)) {
            bool ok = false;
            const qulonglong event = options.value(*option).toULongLong(&ok);
            if (!ok || event > controller.event_count()) {
                std::cerr << "gallocsim-gui: --" << option->names().front().toStdString() << " "
                          << options.value(*option).toStdString() << ": the trace has events 0 to " << controller.event_count()
                          << "\n";
                return false;
            }
            controller.jump(event);
        }
    }
    if (loaded && options.has(options.step)) {
        bool ok = false;
        const qulonglong step = options.value(options.step).toULongLong(&ok);
        const std::size_t last_step = controller.trace().node_count;
        if (!ok || step > last_step) {
            std::cerr << "gallocsim-gui: --at-step " << options.value(options.step).toStdString()
                      << ": the graph has node steps 0 to " << last_step << "\n";
            return false;
        }
        controller.jump(controller.timeline().position_after_node_step(step));
    }
    if (options.has(options.peak)) {
        controller.go_to_peak();
    }
    if (options.has(options.raise) && !window.raise_dock(options.value(options.raise))) {
        std::cerr << "gallocsim-gui: no dock named " << options.value(options.raise).toStdString() << "\n";
        return false;
    }
    return true;
}

// --run with --screenshot: waits until the program stops or ends, so that the picture shows
// where it stopped; the program then goes on, unstopped, to its end.
void wait_for_live_stop(SimulationController& controller) {
    const gallocsim::gui::LiveRun* live = controller.live();
    while (live != nullptr && live->waiting() == nullptr && !live->end()) {
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
    QApplication::processEvents();
}

void finish_live_run(MainWindow& window) {
    SimulationController& controller = window.controller();
    gallocsim::gui::LiveRun* live = controller.live();
    if (live == nullptr) {
        return;
    }
    controller.set_live_stops({});
    while (!live->end()) {
        controller.continue_live();
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
}

// --screenshot: the window at its size, painted once, as a PNG.
int save_screenshot(const Options& options, MainWindow& window) {
    if (const auto size = screenshot_size(options)) {  // checked with the flags
        window.resize(*size);
    }
    window.show();
    QApplication::processEvents();
    if (!window.grab().save(options.value(options.screenshot), "PNG")) {
        std::cerr << "gallocsim-gui: cannot write " << options.value(options.screenshot).toStdString() << "\n";
        return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    Options options;
    if (const auto exit_code = parse_flags(options, argc, argv)) {
        return *exit_code;
    }
    QApplication app(argc, argv);
    name_application();
    const bool headless = options.has(options.screenshot);
    MainWindow window(/*saved_settings=*/!headless);
    if (headless) {
        // Errors go to the terminal: there is nobody to close a dialog.
        window.set_message_sink([](const QString& title, const QString& message) {
            std::cerr << "gallocsim-gui: " << title.toStdString() << ": " << message.toStdString() << "\n";
        });
    }
    if (!choose_rules(options, window.controller())) {
        return 2;
    }
    // A screenshot of a live run keeps nothing: its capture goes with the window (the
    // program has ended by then: finish_live_run).
    QTemporaryDir scratch;
    const bool loaded = open_input(options, window, headless ? scratch.filePath("capture") : QString());
    if (!loaded && (options.has(options.call) || options.has(options.run))) {
        return 2;
    }
    if (headless && loaded) {
        wait_for_live_stop(window.controller());  // so that --at-event, --peak, ... apply to what it stopped at
    }
    if (!arrange_views(options, window, loaded)) {
        return 2;
    }
    if (!headless) {
        window.show();
        return app.exec();
    }
    if (!loaded) {
        return 1;
    }
    const int saved = save_screenshot(options, window);
    finish_live_run(window);
    return saved;
}
