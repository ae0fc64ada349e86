#include "gui/capture_panel.hpp"

#include "simulator/model/amount_text.hpp"
#include "simulator/model/capture_call.hpp"

#include "gui/live_run.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/text.hpp"
#include "simulator/model/capture_session.hpp"

#include <QColor>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace gallocsim::gui {

namespace {

constexpr int kSessionRole = Qt::UserRole;
constexpr int kCallRole = Qt::UserRole + 1;

QString short_function(CapturedFunction function) {
    return qstr(captured_function_name(function)).remove("ggml_gallocr_");
}

// Short words, so the column fits the dock beside the others; the tooltip says it whole.
QString replanned_text(const CapturedCall& call) {
    if (call.is_reserve()) {
        return QObject::tr("plans");
    }
    return call.replanned.value_or(false) ? QObject::tr("yes") : QObject::tr("kept");
}

QString replanned_tip(const CapturedCall& call) {
    if (call.is_reserve()) {
        return QObject::tr("a reserve always plans the graph");
    }
    return call.replanned.value_or(false) ? QObject::tr("ggml_gallocr_needs_realloc said yes: this call planned again")
                                          : QObject::tr("no: it kept the plan of an earlier call and placed its tensors by it");
}

// The buffer sizes the program reported after the call, short enough for the dock: "64 B",
// "80 B, 160 B" by buffer id (the tooltip names the ids).
QString buffer_sizes_cell(const CapturedCall& call) {
    QStringList sizes;
    for (const std::size_t size : call.buffer_sizes) {
        sizes << qstr(binary_size(size));
    }
    return sizes.join(", ");
}

// gallocsim's verdict on a call of a live run: empty for a capture opened from disk.
void show_verdict(QTreeWidgetItem& item, const CallReplay* replay) {
    if (replay == nullptr) {
        return;
    }
    switch (replay->outcome) {
    case CallOutcome::passed:
        item.setText(CapturePanel::check_column, QObject::tr("pass"));
        item.setToolTip(CapturePanel::check_column, QObject::tr("gallocsim's plan of this call is what ggml did"));
        break;
    case CallOutcome::failed:
        item.setText(CapturePanel::check_column, QObject::tr("FAIL"));
        item.setToolTip(CapturePanel::check_column,
                        qstr(replay->error.empty() && !replay->differences.empty() ? replay->differences.front() : replay->error));
        for (int column = 0; column < CapturePanel::column_count; ++column) {
            item.setForeground(column, QColor(180, 0, 0));
        }
        break;
    case CallOutcome::not_replayed:
        item.setText(CapturePanel::check_column, QObject::tr("not replayed"));
        item.setToolTip(CapturePanel::check_column, qstr(replay->error));
        break;
    }
}

} // namespace

CapturePanel::CapturePanel(SimulationController& controller, QWidget* parent)
    : QWidget(parent), controller_(controller), live_line_(new QLabel), note_(new QLabel), calls_(new QTreeWidget) {
    live_line_->setWordWrap(true);
    live_line_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    live_line_->hide();
    note_->setWordWrap(true);
    note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    calls_->setColumnCount(column_count);
    calls_->setHeaderLabels({tr("session"), tr("call"), tr("function"), tr("nodes"), tr("buffers"), tr("re-planned"), tr("check")});
    calls_->setRootIsDecorated(false);
    calls_->setUniformRowHeights(true);
    calls_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    calls_->header()->setStretchLastSection(true);  // the last column shown takes the rest of the dock
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(live_line_);
    layout->addWidget(note_);
    layout->addWidget(calls_, 1);

    connect(&controller_, &SimulationController::capture_changed, this, &CapturePanel::rebuild);
    connect(&controller_, &SimulationController::selected_call_changed, this, &CapturePanel::show_selection);
    connect(&controller_, &SimulationController::live_changed, this, &CapturePanel::show_live);
    show_live();
    connect(calls_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) { picked(item); });
    rebuild();
}

void CapturePanel::rebuild() {
    updating_ = true;
    calls_->clear();
    if (const Capture* capture = controller_.capture()) {
        for (std::size_t s = 0; s < capture->sessions.size(); ++s) {
            const CaptureSession& session = capture->sessions[s];
            for (std::size_t c = 0; c < session.calls.size(); ++c) {
                const CapturedCall& call = session.calls[c];
                auto* item = new QTreeWidgetItem(calls_);
                item->setText(allocator_column, QString::number(session.allocator));
                item->setText(call_column, QString::number(call.number));
                item->setText(function_column, short_function(call.function));
                item->setText(nodes_column, QString::number(call.nodes));
                item->setText(buffers_column, buffer_sizes_cell(call));
                item->setToolTip(buffers_column, qstr(call_buffer_sizes_text(call)) + tr(", as the program reported after this call"));
                item->setText(replanned_column, replanned_text(call));
                item->setToolTip(replanned_column, replanned_tip(call));
                item->setToolTip(function_column, qstr(call.graph));
                item->setData(0, kSessionRole, QVariant::fromValue(s));
                item->setData(0, kCallRole, QVariant::fromValue(c));
                show_verdict(*item, controller_.live() ? controller_.live()->verdict(session.label(), c) : nullptr);
            }
        }
    }
    updating_ = false;
    show_selection();
}

void CapturePanel::show_selection() {
    const auto chosen = controller_.selected_call();
    if (!controller_.capture()) {
        note_->setText(tr("No capture open (File, Open capture…)."));
    } else if (!chosen) {
        note_->setText(controller_.call_note().isEmpty() ? tr("The graph shown is not one of the capture's calls: pick a call.")
                                                         : controller_.call_note());
    } else {
        note_->setText(tr("Call %1: %2.").arg(chosen->call).arg(controller_.call_note()));
    }
    updating_ = true;
    for (int row = 0; row < calls_->topLevelItemCount(); ++row) {
        QTreeWidgetItem* item = calls_->topLevelItem(row);
        if (chosen && item->data(0, kSessionRole).value<std::size_t>() == chosen->session &&
            item->data(0, kCallRole).value<std::size_t>() == chosen->call) {
            calls_->setCurrentItem(item);
            calls_->scrollToItem(item);
        }
    }
    updating_ = false;
}

void CapturePanel::show_live() {
    const LiveRun* live = controller_.live();
    live_line_->setVisible(live != nullptr);
    calls_->setColumnHidden(check_column, live == nullptr);  // verdicts are a live run's
    if (live != nullptr) {
        live_line_->setText(live->status_text());
    }
}

void CapturePanel::picked(QTreeWidgetItem* item) {
    if (updating_ || item == nullptr) {
        return;
    }
    controller_.select_call(item->data(0, kSessionRole).value<std::size_t>(), item->data(0, kCallRole).value<std::size_t>());
}

} // namespace gallocsim::gui
