#include "gui/event_log.hpp"

#include "gui/simulation_controller.hpp"
#include "gui/tensor_color.hpp"
#include "gui/text.hpp"

#include <QEvent>
#include <QFrame>
#include <QListView>
#include <QPainter>
#include <QResizeEvent>
#include <QStyle>
#include <QStyleOptionFrame>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace gallocsim::gui {

EventListModel::EventListModel(SimulationController& controller, QObject* parent)
    : QAbstractListModel(parent), controller_(controller) {
    connect(&controller_, &SimulationController::graph_changed, this, [this] {
        beginResetModel();
        rows_ = static_cast<int>(controller_.event_count());
        endResetModel();
    });
    auto refresh = [this] {
        if (rows_ > 0) {
            Q_EMIT dataChanged(index(0), index(rows_ - 1));
        }
    };
    connect(&controller_, &SimulationController::breakpoints_changed, this, refresh);
    rows_ = static_cast<int>(controller_.event_count());
}

int EventListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : rows_;
}

QVariant EventListModel::data(const QModelIndex& index, int role) const {
    const auto event = static_cast<std::size_t>(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return QStringLiteral("%1  %2: %3")
            .arg(event + 1)
            .arg(qstr(kind_name(kind_of(controller_.trace().events[event]))), qstr(controller_.explanation(event)));
    case Qt::ToolTipRole:
        return qstr(controller_.explanation(event));
    case Qt::DecorationRole: {
        const auto& stops = controller_.breakpoint_positions();
        return std::ranges::binary_search(stops, event + 1) ? QVariant(palette::cursor) : QVariant();
    }
    case Qt::ForegroundRole:
        // Steps not taken yet are grey.
        return event + 1 > controller_.position() ? QVariant(palette::muted_text) : QVariant();
    default:
        return {};
    }
}

constexpr int kCueMargin = 6;

CueText::CueText(int lines, bool framed, QWidget* parent) : QWidget(parent), lines_(lines), framed_(framed) {
    document_.setDocumentMargin(kCueMargin);
    document_.setDefaultFont(font());
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    setFixedHeight(minimum_height());
}

int CueText::minimum_height() const {
    return lines_ * fontMetrics().lineSpacing() + 2 * kCueMargin + 2;
}

// Tall enough for the whole text. It only grows while the width stays, so that stepping
// through sentences of different lengths does not lay the window out again at each step.
void CueText::fit_height(bool allow_shrink) {
    document_.setTextWidth(width());
    const int needed = std::max(minimum_height(), static_cast<int>(std::ceil(document_.size().height())) + 2);
    if (needed > height() || (allow_shrink && needed != height())) {
        setFixedHeight(needed);
    }
}

void CueText::set_html(const QString& html) {
    document_.setHtml(html);
    fit_height(/*allow_shrink=*/false);
    update();
}

void CueText::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) {
        document_.setDefaultFont(font());
        fit_height(/*allow_shrink=*/true);
    }
    QWidget::changeEvent(event);
}

void CueText::resizeEvent(QResizeEvent* event) {
    if (event->size().width() != event->oldSize().width()) {
        fit_height(/*allow_shrink=*/true);
    }
    QWidget::resizeEvent(event);
}

void CueText::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    if (framed_) {
        QStyleOptionFrame frame;
        frame.initFrom(this);
        frame.frameShape = QFrame::StyledPanel;
        frame.lineWidth = 1;
        style()->drawPrimitive(QStyle::PE_Frame, &frame, &painter, this);
    }
    document_.setTextWidth(width());
    painter.setClipRect(rect().adjusted(1, 1, -1, -1));
    document_.drawContents(&painter);
}

EventLog::EventLog(SimulationController& controller, QWidget* parent)
    : QWidget(parent), controller_(controller), model_(new EventListModel(controller, this)),
      step_label_(new CueText(1, /*framed=*/false)), last_label_(new CueText(3, /*framed=*/true)),
      next_label_(new CueText(3, /*framed=*/false)), list_(new QListView) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.35);
    step_label_->setFont(big);
    last_label_->setFont(big);
    layout->addWidget(step_label_);
    layout->addWidget(last_label_);
    layout->addWidget(next_label_);
    list_->setModel(model_);
    list_->setUniformItemSizes(true);
    list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    list_->setTextElideMode(Qt::ElideRight);
    list_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    list_->setSelectionMode(QAbstractItemView::SingleSelection);
    layout->addWidget(list_, 1);

    connect(list_, &QListView::clicked, this, [this](const QModelIndex& index) {
        controller_.jump(static_cast<std::size_t>(index.row()) + 1);
    });
    connect(&controller_, &SimulationController::position_changed, this, &EventLog::refresh);
    connect(&controller_, &SimulationController::graph_changed, this, [this] {
        shown_position_ = controller_.position();  // the model was reset: every row is new
        refresh();
    });
    shown_position_ = controller_.position();
    refresh();
}

// Rows the cursor passed turn from grey to black or back; no other row changes. The model
// reads the cursor when asked, so those rows only need repainting. (dataChanged, even for
// one row, makes QListView repaint its whole viewport, eliding every visible sentence
// again: that was half of a step's time on a 5,000-node graph.)
void EventLog::repaint_rows_between(std::size_t from, std::size_t to) {
    constexpr std::size_t kRowsWorthRepaintingOneByOne = 64;
    const std::size_t first = std::min(from, to);
    const std::size_t last = std::min(std::max(from, to), static_cast<std::size_t>(model_->rowCount()));
    if (first < last && last - first > kRowsWorthRepaintingOneByOne) {
        list_->viewport()->update();
        return;
    }
    for (std::size_t row = first; row < last; ++row) {
        list_->update(model_->index(static_cast<int>(row)));
    }
}

QString EventLog::just_happened() const {
    if (!controller_.has_graph()) {
        return tr("Nothing: no graph is open (File > Open, or an example).");
    }
    if (controller_.position() == 0) {
        return tr("Nothing yet: the plan starts with the first event.");
    }
    return qstr(controller_.explanation(controller_.position() - 1));
}

QString EventLog::happens_next() const {
    if (!controller_.has_graph()) {
        return tr("Nothing until a graph is open.");
    }
    if (controller_.position() == controller_.event_count()) {
        return tr("Nothing: the plan is complete.");
    }
    return qstr(controller_.explanation(controller_.position()));
}

void EventLog::refresh() {
    const std::size_t position = controller_.position();
    const std::size_t total = controller_.event_count();
    step_label_->set_html(!controller_.has_graph() ? tr("<b>No graph</b>")
                          : position == 0          ? tr("<b>Start</b> (before event 1 of %1)").arg(total)
                                                   : tr("<b>Event %1 of %2</b>").arg(position).arg(total));
    last_label_->set_html(tr("<b>What just happened:</b> %1").arg(just_happened().toHtmlEscaped()));
    next_label_->set_html(tr("<span style='color:#666'><b>What happens next:</b> %1</span>").arg(happens_next().toHtmlEscaped()));
    if (position > 0) {
        const QModelIndex current = model_->index(static_cast<int>(position) - 1);
        list_->setCurrentIndex(current);
        list_->scrollTo(current);
    } else {
        list_->clearSelection();
        list_->scrollToTop();
    }
    repaint_rows_between(shown_position_, position);
    shown_position_ = position;
}

} // namespace gallocsim::gui
