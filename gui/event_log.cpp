#include "gui/event_log.hpp"

#include "gui/simulation_controller.hpp"
#include "gui/tensor_colors.hpp"
#include "gui/text.hpp"

#include <QFrame>
#include <QLabel>
#include <QListView>
#include <QVBoxLayout>

#include <algorithm>

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

EventLog::EventLog(SimulationController& controller, QWidget* parent)
    : QWidget(parent), controller_(controller), model_(new EventListModel(controller, this)), step_label_(new QLabel),
      last_label_(new QLabel), next_label_(new QLabel), list_(new QListView) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.35);
    step_label_->setFont(big);
    last_label_->setFont(big);
    last_label_->setWordWrap(true);
    last_label_->setTextFormat(Qt::RichText);
    next_label_->setWordWrap(true);
    next_label_->setTextFormat(Qt::RichText);
    last_label_->setFrameShape(QFrame::StyledPanel);
    last_label_->setMargin(6);
    last_label_->setMinimumHeight(56);
    last_label_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    next_label_->setMargin(6);
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
    connect(&controller_, &SimulationController::graph_changed, this, &EventLog::refresh);
    refresh();
}

QString EventLog::just_happened() const {
    if (!controller_.has_graph() || controller_.position() == 0) {
        return tr("Nothing yet: the plan starts with the first step.");
    }
    return qstr(controller_.explanation(controller_.position() - 1));
}

QString EventLog::happens_next() const {
    if (!controller_.has_graph() || controller_.position() == controller_.event_count()) {
        return tr("Nothing: the plan is complete.");
    }
    return qstr(controller_.explanation(controller_.position()));
}

void EventLog::refresh() {
    const std::size_t position = controller_.position();
    const std::size_t total = controller_.event_count();
    step_label_->setText(position == 0 ? tr("<b>Start</b> (before step 1 of %1)").arg(total)
                                       : tr("<b>Step %1 of %2</b>").arg(position).arg(total));
    last_label_->setText(tr("<b>What just happened:</b> %1").arg(just_happened().toHtmlEscaped()));
    next_label_->setText(tr("<span style='color:#666'><b>What happens next:</b> %1</span>").arg(happens_next().toHtmlEscaped()));
    if (position > 0) {
        const QModelIndex current = model_->index(static_cast<int>(position) - 1);
        list_->setCurrentIndex(current);
        list_->scrollTo(current);
    } else {
        list_->clearSelection();
        list_->scrollToTop();
    }
    list_->viewport()->update();
}

} // namespace gallocsim::gui
