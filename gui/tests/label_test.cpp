// No label is cut in the memory map, the Peak panel and the Statistics panel, at window widths of
// 1280, 1440 and 1600 pixels (the docs' screenshots are 1440 and 1600 wide), on the seed example,
// the real-size Llama-3.1-8B capture and a CUDA capture (two buffer types, a graph split by ggml's
// scheduler), at the peak, as the screenshots show them. Each is rendered into a device that
// records every text painted (text_boxes.hpp): a label is cut when it is elided ("…"), drawn past
// the clip its painter had (its box, its table cell, its widget), over another label, or out of
// the widget. The Peak panel's text scrolls, so its whole document is drawn at the panel's width:
// nothing may be wider, and its table's columns stand apart.
// A review of the docs' pictures found "high water 308…" and "@54…" in the memory map, the Peak
// panel's columns running together ("a graph output: never freed without it: 7.81 MiB"), and
// the Statistics notes elided.
#include "gui/main_window.hpp"
#include "gui/memory_map_view.hpp"
#include "gui/peak_panel.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/statistics_panel.hpp"
#include "text_boxes.hpp"

#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>
#include <QTextBrowser>
#include <QTextDocument>

#include <algorithm>
#include <memory>

namespace gallocsim::gui {

using testing_support::cut_texts;
using testing_support::run_together;
using testing_support::TextBoxDevice;

class LabelTest : public QObject {
    Q_OBJECT

private:
    // What the window shows, as a learner opens it: the input, then the peak.
    static std::unique_ptr<MainWindow> window_at_peak(const QString& input, QSize size) {
        auto window = std::make_unique<MainWindow>(/*saved_settings=*/false);
        window->resize(size);
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get())) {
            return nullptr;
        }
        SimulationController& controller = window->controller();
        if (!(input == "seed" ? controller.load_example(input) : controller.open_capture(input))) {
            return nullptr;
        }
        controller.go_to_peak();
        QCoreApplication::processEvents();
        return window;
    }

    // The first label cut in a widget as painted with its children; empty when none is.
    static QString cut_in(QWidget& widget) {
        TextBoxDevice device(widget);
        widget.render(&device);
        return device.boxes().empty() ? QStringLiteral("no text drawn") : cut_texts(device.boxes(), QRectF(widget.rect()));
    }

    // The same for a text browser's whole document, scrolled or not, drawn at the browser's
    // width: no wider than the browser, and its table's columns at least 12 pixels apart.
    static QString cut_in_document(QTextBrowser& text) {
        QTextDocument& document = *text.document();
        const QSize whole(text.viewport()->width(), static_cast<int>(document.size().height()) + 1);
        if (document.size().width() > whole.width()) {
            return QStringLiteral("the text is %1 pixels wide, the browser %2").arg(document.size().width()).arg(whole.width());
        }
        TextBoxDevice device(text, whole);
        {
            QPainter painter(&device);
            document.drawContents(&painter);
        }
        if (device.boxes().empty()) {
            return QStringLiteral("no text drawn");
        }
        const QString cut = cut_texts(device.boxes(), QRectF(QPointF(0, 0), QSizeF(whole)));
        return cut.isEmpty() ? run_together(device.boxes(), 12) : cut;
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void no_label_is_cut_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QSize>("size");
        for (const QString& input : {QStringLiteral("seed"), QStringLiteral(GALLOCSIM_REAL_SIZE_CAPTURE),
                                    QStringLiteral(GALLOCSIM_CUDA_CAPTURE)}) {
            for (const QSize size : {QSize(1280, 800), QSize(1440, 900), QSize(1600, 1000)}) {
                QTest::addRow("%s at %d", qPrintable(input.section('/', -1)), size.width()) << input << size;
            }
        }
    }

    void no_label_is_cut() {
        QFETCH(QString, input);
        QFETCH(QSize, size);
        const auto window = window_at_peak(input, size);
        QVERIFY(window);

        MemoryMapView& map = window->memory_map();
        TextBoxDevice map_device(map);
        {
            QPainter painter(&map_device);
            map.render_view(painter);
        }
        // Labels are drawn whole or not at all: the headings and the chunks' labels are drawn.
        const auto drawn = [&](const QString& text) {
            return std::ranges::any_of(map_device.boxes(), [&](const auto& box) { return box.text.startsWith(text); });
        };
        QVERIFY(drawn("CPU (buffer 0)") || drawn("CUDA0 (buffer 0)"));
        QVERIFY(drawn("chunk 0: high water"));
        const QString map_cut = cut_texts(map_device.boxes(), QRectF(map.rect()));
        QVERIFY2(map_cut.isEmpty(), qPrintable("memory map: " + map_cut));

        QVERIFY(window->raise_dock("statistics"));
        QCoreApplication::processEvents();
        const QString chart_cut = cut_in(window->statistics().chart());
        QVERIFY2(chart_cut.isEmpty(), qPrintable("statistics chart: " + chart_cut));
        const QString table_cut = cut_in(window->statistics().table());
        QVERIFY2(table_cut.isEmpty(), qPrintable("statistics table: " + table_cut));
        const QString notes_cut = cut_in_document(window->statistics().notes());
        QVERIFY2(notes_cut.isEmpty(), qPrintable("statistics notes: " + notes_cut));

        QVERIFY(window->raise_dock("peak"));
        QCoreApplication::processEvents();
        const QString peak_cut = cut_in_document(window->peak_panel().text());
        QVERIFY2(peak_cut.isEmpty(), qPrintable("peak: " + peak_cut));
    }
};

} // namespace gallocsim::gui

QTEST_MAIN(gallocsim::gui::LabelTest)
#include "label_test.moc"
