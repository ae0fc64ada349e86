#pragma once
// The window as the window suites drive it (main_window_test, window_panels_test): a fresh
// MainWindow for each test, 1280 x 800, shown and active, the seed example loaded, its error
// messages collected instead of shown in dialogs; and the seed's steps the tests stop at,
// found by what they are (find_step.hpp), never by their number.

#include "find_step.hpp"
#include "gui/main_window.hpp"
#include "gui/simulation_controller.hpp"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <vector>

namespace gallocsim::gui::test_support {

class WindowFixture {
protected:
    struct Message {
        QString title;
        QString text;
    };
    std::unique_ptr<MainWindow> window_;
    std::vector<Message> messages_;

    // A test's init(): false when the window could not be shown or the seed not loaded.
    bool open_window() {
        messages_.clear();
        window_ = std::make_unique<MainWindow>(/*saved_settings=*/false);
        window_->set_message_sink([this](const QString& title, const QString& text) { messages_.push_back({title, text}); });
        window_->resize(1280, 800);
        window_->show();
        if (!QTest::qWaitForWindowExposed(window_.get())) {
            return false;
        }
        window_->activateWindow();
        return QTest::qWaitForWindowActive(window_.get()) && controller().load_example("seed");
    }

    SimulationController& controller() { return window_->controller(); }
    TensorId id(const char* name) { return *controller().find_tensor(name); }

    static QString write_file(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
        const QString path = dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size()) {
            qFatal("cannot write %s", qPrintable(path));
        }
        return path;
    }

    // The step of the one event of `kind` about the tensors named, in the trace shown.
    template <typename... Names>
    std::size_t step(EventOfKind kind, const Names&... tensors) {
        return find_step(controller().trace(), kind, tensors...);
    }
    std::size_t leafs_placed() { return step(EventKind::leaf_allocated, "b"); }  // a and b both live
    std::size_t mul_in_place() { return step(EventKind::in_place_reused, "mul"); }
    std::size_t b_freed() { return step(EventKind::tensor_freed, "b"); }
};

} // namespace gallocsim::gui::test_support
