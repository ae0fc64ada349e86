// gallocsim-gui [FILE|DIR]: step through ggml's graph memory planning: a graph file, a saved
// session, or a capture folder (its calls listed to pick from). With nothing given, the seed
// walkthrough's example is loaded. --at-event or --at-step with --screenshot render the window
// at a position into a PNG and exit (for documentation images).
#include "gui/main_window.hpp"
#include "gui/simulation_controller.hpp"
#include "reference/version_map.hpp"

#include <QApplication>
#include <QCoreApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <iostream>
#include <optional>
#include <utility>

namespace {

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

} // namespace

int main(int argc, char** argv) {
    QCommandLineParser parser;
    parser.setApplicationDescription("Step through ggml's graph memory allocator.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("file", "graph file (ggml-graph/1), saved session or capture folder to open", "[FILE|DIR]");
    const QCommandLineOption example_option("example", "open a built-in example instead of a file", "name");
    const QCommandLineOption event_option("at-event", "move the cursor to this event after loading (0: the start)", "K");
    QCommandLineOption old_step_option("step", "the old name of --at-event", "K");
    old_step_option.setFlags(QCommandLineOption::HiddenFromHelp);
    const QCommandLineOption step_option("at-step", "move the cursor to the end of this node step (0: leafs and inputs; i: node i)", "I");
    const QCommandLineOption axis_option("timeline-axis", "the timeline's x axis: steps (node steps, the default) or events", "axis",
                                         "steps");
    const QCommandLineOption peak_option("peak", "go to where the largest buffer's size was set, and show the Peak panel");
    const QCommandLineOption screenshot_option("screenshot", "save the window as a PNG and exit", "png");
    const QCommandLineOption size_option("size", "window size for --screenshot (default 1440x900)", "WxH", "1440x900");
    const QCommandLineOption raise_option("raise", "bring a dock to the front: timeline, state, statistics or peak", "dock");
    const QCommandLineOption version_option(QStringList{"ggml-version", "policy"},
                                            "plan by the rules of this ggml version, or of a policy file (docs/policies.md; "
                                            "default: the newest version)",
                                            "name");
    const QCommandLineOption call_option("call", "in a capture folder, pick this call: K (session 0) or S:K", "call");
    parser.addOptions({example_option, event_option, old_step_option, step_option, axis_option, peak_option, screenshot_option, size_option, raise_option, version_option,
                       call_option});
    {
        // Flags first, without a display: --help, --version and flag errors work anywhere
        // (QApplication aborts when there is no display to connect to).
        QCoreApplication flags_only(argc, argv);
        name_application();
        if (!parser.parse(QCoreApplication::arguments())) {
            std::cerr << "gallocsim-gui: " << parser.errorText().toStdString() << " (gallocsim-gui --help lists the options)\n";
            return 2;
        }
        if (parser.isSet("help")) {
            parser.showHelp(0);
        }
        if (parser.isSet("version")) {
            parser.showVersion();
        }
    }

    QApplication app(argc, argv);
    name_application();

    const bool headless = parser.isSet(screenshot_option);
    gallocsim::gui::MainWindow window(/*saved_settings=*/!headless);
    if (headless) {
        // Errors go to the terminal: there is nobody to close a dialog.
        window.set_message_sink([](const QString& title, const QString& message) {
            std::cerr << "gallocsim-gui: " << title.toStdString() << ": " << message.toStdString() << "\n";
        });
    }
    auto& controller = window.controller();
    if (parser.isSet(version_option) && gallocsim::profile_named(parser.value(version_option).toStdString()) == nullptr &&
        gallocsim::looks_like_policy_file(parser.value(version_option).toStdString())) {
        if (!controller.load_policy(parser.value(version_option))) {
            return 2;  // the controller said why
        }
    } else if (parser.isSet(version_option)) {
        const gallocsim::AllocatorProfile* profile = gallocsim::profile_named(parser.value(version_option).toStdString());
        if (profile == nullptr) {
            std::cerr << "gallocsim-gui: --ggml-version " << parser.value(version_option).toStdString() << ": "
                      << gallocsim::unknown_version_text() << "\n";
            return 2;
        }
        controller.set_profile(*profile);
    }
    bool loaded = false;
    if (!parser.positionalArguments().isEmpty()) {
        loaded = window.open(parser.positionalArguments().front());
    } else {
        loaded = controller.load_example(parser.value(example_option).isEmpty() ? "seed" : parser.value(example_option));
    }
    if (loaded && parser.isSet(call_option)) {
        const auto call = parse_call(parser.value(call_option));
        if (!call) {
            std::cerr << "gallocsim-gui: --call " << parser.value(call_option).toStdString()
                      << ": give K or S:K (session S, call K, counted from 0)\n";
            return 2;
        }
        if (!controller.select_call(call->first, call->second)) {
            return 2;  // the controller has said why (no capture, no such session or call)
        }
    }
    if (parser.isSet(axis_option)) {
        const QString axis = parser.value(axis_option);
        if (axis != "steps" && axis != "events") {
            std::cerr << "gallocsim-gui: --timeline-axis " << axis.toStdString() << ": give steps or events\n";
            return 2;
        }
        window.set_timeline_axis(axis == "events" ? gallocsim::TimeAxis::events : gallocsim::TimeAxis::node_steps);
    }
    for (const QCommandLineOption* option : std::initializer_list<const QCommandLineOption*>{&event_option, &old_step_option}) {
        if (loaded && parser.isSet(*option)) {
            const QString name = option->names().front();
            bool ok = false;
            const qulonglong event = parser.value(*option).toULongLong(&ok);
            if (!ok || event > controller.event_count()) {
                std::cerr << "gallocsim-gui: --" << name.toStdString() << " " << parser.value(*option).toStdString()
                          << ": the trace has events 0 to " << controller.event_count() << "\n";
                return 2;
            }
            controller.jump(event);
        }
    }
    if (loaded && parser.isSet(step_option)) {
        bool ok = false;
        const qulonglong step = parser.value(step_option).toULongLong(&ok);
        const std::size_t last_step = controller.trace().node_count;
        if (!ok || step > last_step) {
            std::cerr << "gallocsim-gui: --at-step " << parser.value(step_option).toStdString() << ": the graph has node steps 0 to "
                      << last_step << "\n";
            return 2;
        }
        controller.jump(controller.timeline().position_after_node_step(step));
    }
    if (parser.isSet(peak_option)) {
        controller.go_to_peak();
    }
    if (parser.isSet(raise_option) && !window.raise_dock(parser.value(raise_option))) {
        std::cerr << "gallocsim-gui: no dock named " << parser.value(raise_option).toStdString() << "\n";
        return 2;
    }
    if (!headless) {
        window.show();
        return app.exec();
    }
    if (!loaded) {
        return 1;
    }
    const QStringList size = parser.value(size_option).split('x');
    if (size.size() == 2) {
        window.resize(size[0].toInt(), size[1].toInt());
    }
    window.show();
    QApplication::processEvents();
    const bool saved = window.grab().save(parser.value(screenshot_option), "PNG");
    if (!saved) {
        std::cerr << "gallocsim-gui: cannot write " << parser.value(screenshot_option).toStdString() << "\n";
    }
    return saved ? 0 : 1;
}
