// The window's panels and dialogs, driven as a learner sees them: the Peak panel says what
// `why` says, the Statistics panel what `compare` says (its figures in view), the example
// dialog's rows are the table of example parameters, and no label in the pictures covers
// another on a real-size capture. (The stepping and the views: main_window_test.)
#include "gui/example_dialog.hpp"
#include "gui/memory_map_view.hpp"
#include "gui/peak_panel.hpp"
#include "gui/statistics_panel.hpp"
#include "gui/text.hpp"
#include "gui/timeline_view.hpp"
#include "simulator/analysis/comparison.hpp"
#include "simulator/analysis/ggml_plan.hpp"
#include "simulator/analysis/planners.hpp"
#include "simulator/analysis/planners.hpp"
#include "simulator/model/examples.hpp"
#include "text_boxes.hpp"
#include "window_fixture.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QPainter>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>
#include <QTextBrowser>

#include <algorithm>
#include <set>

namespace gallocsim::gui {

class WindowPanelsTest : public QObject, private test_support::WindowFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { QVERIFY(open_window()); }
    void cleanup() { window_.reset(); }

    // The Peak panel says where the bound is reached, as `why` does: in the seed, before the
    // first node, with a+mul (a and mul share a's bytes) and b live, 32 bytes each.
    void the_peak_panel_names_where_the_bound_is_reached() {
        window_->peak_panel().show();
        const QString text = window_->peak_panel().text().toPlainText();
        QVERIFY2(text.contains("The bound is reached at node step 0 (before the first node), with 2 blocks live: a+mul 32 B, b 32 B."),
                 qPrintable(text));
        // What each live leaf costs on its own, as `why` says it: with a outside the buffer, mul
        // runs in place of b (32 bytes in all); with b outside, in place of a: 32 bytes either way.
        QCOMPARE(text.count("without it: 32 B (saves 32 B)"), 2);
    }

    // The Peak panel tells a hole by its bytes, as `why` does (docs/examples/carved-hole.json, drawn
    // in tests/why_test.cpp: x's 128-byte block, q's 32 bytes carved from it, r's 256 bytes passing it by).
    void the_peak_panel_tells_a_hole_by_its_bytes() {
        QVERIFY(controller().open_file(GALLOCSIM_CARVED_HOLE_EXAMPLE));
        window_->peak_panel().show();
        const QString text = window_->peak_panel().text().toPlainText();
        QVERIFY2(text.contains("chunk 0 [32, 128): 96 B (96 bytes)"), qPrintable(text));
        QVERIFY2(text.contains("[32, 64) 32 B: q's memory"), qPrintable(text));
        QVERIFY2(text.contains("[64, 128) 64 B: x's memory"), qPrintable(text));
        QVERIFY2(text.contains("r (256 B, event"), qPrintable(text));
        QVERIFY2(text.contains("without x: 320 B (saves 96 B)"), qPrintable(text));
    }

    // The example dialog says what a field left alone becomes: the llama's width is 64 and its
    // weights f32, as in golden llama-tiny-t1.json's model (n_embd=64), the example's default.
    void the_example_dialog_says_each_default() {
        const auto examples = list_examples();
        const auto llama = std::ranges::find(examples, std::string("llama"), &ExampleInfo::name);
        QVERIFY(llama != examples.end());
        ExampleDialog dialog(*llama);
        QStringList defaults;
        for (const QSpinBox* spin : dialog.findChildren<QSpinBox*>()) {
            defaults << spin->specialValueText();
        }
        QVERIFY2(defaults.contains("default (64)"), qPrintable(defaults.join(", ")));
        QVERIFY2(!defaults.contains("default"), qPrintable(defaults.join(", ")));  // every one says its value
        QStringList first_items;
        for (const QComboBox* box : dialog.findChildren<QComboBox*>()) {
            first_items << box->itemText(0);
        }
        QVERIFY2(first_items.contains("default (f32)"), qPrintable(first_items.join(", ")));
    }

    // The dialog's rows come from the one table of example parameters (example_parameters()),
    // as the command line's flags do (tests/cli_input_test.cpp): a row for each parameter the
    // example takes, in the order `gallocsim examples` lists them, labelled as the table labels
    // it; every entry of the table is a row of some example's dialog; and each row reaches its
    // parameter: every field moved off "default" gives exactly the example's parameters.
    void the_example_dialog_rows_are_the_table_of_parameters() {
        std::set<std::string> shown;
        for (const ExampleInfo& example : list_examples()) {
            ExampleDialog dialog(example);
            const auto* form = dialog.findChild<QFormLayout*>();
            QVERIFY(form != nullptr);
            QCOMPARE(form->rowCount(), static_cast<int>(example.options.size()));
            for (int row = 0; row < form->rowCount(); ++row) {
                const ExampleParameter* parameter = find_example_parameter(example.options[static_cast<std::size_t>(row)]);
                QVERIFY(parameter != nullptr);
                const auto* label = qobject_cast<QLabel*>(form->itemAt(row, QFormLayout::LabelRole)->widget());
                QVERIFY(label != nullptr);
                QCOMPARE(label->text(), qstr(parameter->label));
                QWidget* field = form->itemAt(row, QFormLayout::FieldRole)->widget();
                if (auto* spin = qobject_cast<QSpinBox*>(field)) {
                    spin->setValue(2);
                } else if (auto* check = qobject_cast<QCheckBox*>(field)) {
                    check->setChecked(true);
                } else if (auto* box = qobject_cast<QComboBox*>(field)) {
                    box->setCurrentIndex(1);
                } else {
                    QFAIL(qPrintable("no field for " + qstr(parameter->name)));
                }
                shown.insert(std::string(parameter->name));
            }
            const ExampleOptions options = dialog.options();
            for (const ExampleParameter& parameter : example_parameters()) {
                const bool takes = std::ranges::find(example.options, parameter.name) != example.options.end();
                QVERIFY2(is_given(parameter, options) == takes, qPrintable(qstr(example.name + " " + std::string(parameter.name))));
            }
        }
        for (const ExampleParameter& parameter : example_parameters()) {
            QVERIFY2(shown.contains(std::string(parameter.name)), qPrintable(qstr(parameter.name)));
        }
    }

    // The statistics show the comparison `gallocsim compare` prints (its default limits), so
    // both say the same about whether the exact search ran: on the seed (2 blocks once mul's
    // in-place chain is joined) it runs and proves its 64 bytes optimal; on a 32-layer
    // llama (the graph where the GUI once said "not tried (> 30 tensors)" while compare ran it)
    // whatever compare says.
    void the_statistics_say_what_compare_says_about_the_exact_search() {
        const auto exact_row = [&] {
            QTableWidget& table = window_->statistics().table();
            for (int row = 0; row < table.rowCount(); ++row) {
                if (table.item(row, 0)->text() == qstr(std::string(find_planner("exact")->title))) {
                    return row;
                }
            }
            return -1;
        };
        const auto check = [&](const char* example, const ExampleOptions& options, const char* expected_start) {
            QVERIFY(controller().load_example(example, options));
            QVERIFY(window_->raise_dock("statistics"));
            QTableWidget& table = window_->statistics().table();
            const int row = exact_row();
            QVERIFY(row >= 0);
            GraphFile file = make_example(example, options);  // as `gallocsim compare EXAMPLE` makes it
            const Comparison compared = compare_planners(file, run_ggml_plan(file, controller().profile()), ExactLimits{});
            QCOMPARE(table.columnCount(), static_cast<int>(compared.arenas.size()) + 1);  // figure, buffer types
            for (std::size_t column = 0; column < compared.arenas.size(); ++column) {
                const auto& alternatives = compared.arenas[column].alternatives;
                const auto exact = std::ranges::find(alternatives, std::string_view("exact"),
                                                     [](const AlternativePlan& a) { return a.planner->key; });
                QVERIFY(exact != alternatives.end());
                QVERIFY2(exact->outcome.note.starts_with(expected_start), exact->outcome.note.c_str());
                QVERIFY(!exact->outcome.note.empty());
                // The figure's tooltip ends with the note; the notes beside the table carry it too.
                const QString tip = table.item(row, static_cast<int>(column) + 1)->toolTip();
                QVERIFY2(tip.endsWith(qstr(exact->outcome.note)), qPrintable(tip));
                QVERIFY(window_->statistics().notes().toPlainText().contains(qstr(exact->outcome.note)));
            }
        };
        check("seed", {}, "optimal");
        ExampleOptions layers;
        layers.layers = 32;
        check("llama", layers, "");
    }

    // No label covers another, in the timeline, the memory map and the live-bytes chart: each
    // view is rendered into a device that records every text it draws (text_boxes.hpp, so a
    // label drawn past the views' placer is seen too), on the real-size Llama-3.1-8B capture
    // (1,158 nodes: dense names, a 308 MiB chunk) at the start, mid-way, at the peak (its
    // lines and labels), at the end, with logarithmic offsets, zoomed in and in a small window.
    // The newcomer round saw the cursor's label over tensor names and the axis, and two chart
    // labels (ggml's plan just above the bound) over each other.
    void no_label_covers_another() {
        using testing_support::overlapping_texts;
        using testing_support::TextBoxDevice;
        QVERIFY(controller().open_capture(QStringLiteral(GALLOCSIM_REAL_SIZE_CAPTURE)));
        window_->show();
        QVERIFY(window_->raise_dock("statistics"));
        QCoreApplication::processEvents();
        const auto check = [&](const QString& when) {
            for (CanvasView* view : std::initializer_list<CanvasView*>{&window_->timeline(), &window_->memory_map()}) {
                TextBoxDevice device(*view);
                {
                    QPainter painter(&device);
                    view->render_view(painter);
                }
                QVERIFY2(!device.boxes().empty(), qPrintable(when));
                const QString clash = overlapping_texts(device.boxes(), QRectF(view->rect()));
                QVERIFY2(clash.isEmpty(), qPrintable(view->windowTitle() + " " + when + ": " + clash));
            }
            LiveBytesChart& chart = window_->statistics().chart();
            TextBoxDevice device(chart);
            chart.render(&device);
            const QString clash = overlapping_texts(device.boxes(), QRectF(chart.rect()));
            QVERIFY2(clash.isEmpty(), qPrintable("chart " + when + ": " + clash));
        };
        for (const QSize size : {QSize(1600, 1000), QSize(1000, 700)}) {
            window_->resize(size);
            QCoreApplication::processEvents();
            const QString at = QStringLiteral(" at %1x%2").arg(size.width()).arg(size.height());
            controller().jump(0);
            check("at the start" + at);
            controller().jump(controller().event_count() / 2);
            check("mid-way" + at);
            controller().go_to_peak();
            check("at the peak" + at);
            controller().jump(controller().event_count());
            check("at the end" + at);
            window_->set_offset_scale(OffsetScaleKind::logarithmic);
            check("with logarithmic offsets" + at);
            window_->set_offset_scale(OffsetScaleKind::linear);
            window_->timeline().zoom_by(8, window_->timeline().rect().center());
            window_->memory_map().zoom_by(8, window_->memory_map().rect().center());
            check("zoomed in" + at);
            window_->timeline().fit_to_window();
            window_->memory_map().fit_to_window();
        }
    }

    // The newcomer round saw the Statistics table's numbers out of view at 1600 pixels: the
    // notes sat in the figure cells and widened them ("292.01 MiB, optimal: greedy by size
    // meets the lower bound" on the real-size Llama-3.1-8B capture). Every figure lies inside
    // the table's viewport of a 1600 x 1000 window with the default docks, whole (its column as
    // wide as its text needs); the notes, beside the table, wrap.
    void the_statistics_figures_stay_in_view_at_1600_pixels() {
        QVERIFY(controller().open_capture(QStringLiteral(GALLOCSIM_REAL_SIZE_CAPTURE)));
        window_->show();
        QVERIFY(window_->raise_dock("statistics"));
        QTableWidget& table = window_->statistics().table();
        QVERIFY(table.rowCount() >= 7);  // ggml, three planners, two bounds, no reuse
        for (const int width : {1600, 1200}) {  // and narrower: the figures are what stays
            window_->resize(width, 1000);
            QCoreApplication::processEvents();
            const QRect viewport = table.viewport()->rect();
            for (int column = 0; column < table.columnCount(); ++column) {  // whole, not elided
                int needed = 0;
                for (int row = 0; row < table.rowCount(); ++row) {
                    needed = std::max(needed, table.fontMetrics().horizontalAdvance(table.item(row, column)->text()));
                }
                QVERIFY2(table.columnWidth(column) >= needed,
                         qPrintable(QStringLiteral("window %1 wide, column %2: %3 pixels, its longest text needs %4")
                                        .arg(width).arg(column).arg(table.columnWidth(column)).arg(needed)));
            }
            for (int row = 0; row < table.rowCount(); ++row) {
                for (int column = 0; column < table.columnCount(); ++column) {
                    const QRect cell = table.visualItemRect(table.item(row, column));
                    QVERIFY2(viewport.contains(cell),
                             qPrintable(QStringLiteral("window %1 wide, row %2 column %3: %4 at x %5..%6, viewport %7 wide")
                                            .arg(width).arg(row).arg(column).arg(table.item(row, column)->text())
                                            .arg(cell.left()).arg(cell.right()).arg(viewport.width())));
                }
            }
        }
    }
};

} // namespace gallocsim::gui

QTEST_MAIN(gallocsim::gui::WindowPanelsTest)
#include "window_panels_test.moc"
