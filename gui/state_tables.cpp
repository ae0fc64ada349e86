#include "gui/state_tables.hpp"

#include "gui/simulation_controller.hpp"
#include "gui/tensor_color.hpp"
#include "gui/text.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace gallocsim::gui {

namespace {
const QColor kChangedRow{255, 236, 179};

QString tail_offset_text(const FreeBlock& block, bool tail) {
    return tail ? QObject::tr("%1 (tail)").arg(block.offset) : QString::number(block.offset);
}
} // namespace

// --- FreeBlockModel -------------------------------------------------------------------

FreeBlockModel::FreeBlockModel(SimulationController& controller, QObject* parent)
    : QAbstractTableModel(parent), controller_(controller) {
    connect(&controller_, &SimulationController::graph_changed, this, &FreeBlockModel::refresh);
    connect(&controller_, &SimulationController::position_changed, this, &FreeBlockModel::refresh);
    refresh();
}

void FreeBlockModel::refresh() {
    beginResetModel();
    rows_.clear();
    if (controller_.has_graph()) {
        const SimState& now = controller_.state();
        const SimState& before = controller_.state_before();
        for (std::size_t a = 0; a < now.allocators.size(); ++a) {
            const auto& chunks = now.allocators[a].chunks;
            for (std::size_t c = 0; c < chunks.size(); ++c) {
                const auto& blocks = chunks[c].free_blocks;
                const auto& old_chunks = before.allocators[a].chunks;
                const std::vector<FreeBlock>* old = c < old_chunks.size() ? &old_chunks[c].free_blocks : nullptr;
                for (std::size_t b = 0; b < blocks.size(); ++b) {
                    const bool changed = old == nullptr || std::ranges::find(*old, blocks[b]) == old->end();
                    rows_.push_back({static_cast<int>(a), static_cast<int>(c), static_cast<int>(b), blocks[b],
                                     b + 1 == blocks.size(), changed});
                }
            }
        }
    }
    endResetModel();
}

int FreeBlockModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int FreeBlockModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : column_count;
}

QVariant FreeBlockModel::data(const QModelIndex& index, int role) const {
    const Row& row = rows_.at(static_cast<std::size_t>(index.row()));
    if (role == Qt::BackgroundRole) {
        return row.changed ? QVariant(kChangedRow) : QVariant();
    }
    if (role == Qt::TextAlignmentRole) {
        return index.column() == buffer_type ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    // The tail's size is whatever is left of the chunk's maximum: SIZE_MAX/2 when unbounded.
    switch (index.column()) {
    case buffer_type:
        for (const TraceBuffer& buffer : controller_.trace().buffers) {
            if (buffer.allocator == row.allocator) {
                return qstr(buffer.type_name);
            }
        }
        return {};
    case chunk:
        return row.chunk;
    case block:
        return row.block;
    case offset:
        return tail_offset_text(row.free_block, row.tail);
    case size:
        return QString::number(row.free_block.size);
    case end:
        return QString::number(row.free_block.end());
    default:
        return {};
    }
}

QVariant FreeBlockModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    static const char* const names[] = {QT_TR_NOOP("buffer type"), QT_TR_NOOP("chunk"), QT_TR_NOOP("#"),
                                        QT_TR_NOOP("offset"),      QT_TR_NOOP("size"),  QT_TR_NOOP("end")};
    return tr(names[section]);
}

// --- TensorRecordModel ----------------------------------------------------------------

TensorRecordModel::TensorRecordModel(SimulationController& controller, QObject* parent)
    : QAbstractTableModel(parent), controller_(controller) {
    connect(&controller_, &SimulationController::graph_changed, this, [this] {
        beginResetModel();
        rows_ = controller_.has_graph() ? static_cast<int>(controller_.trace().tensors.size()) : 0;
        endResetModel();
    });
    connect(&controller_, &SimulationController::position_changed, this, &TensorRecordModel::refresh_all);
    rows_ = controller_.has_graph() ? static_cast<int>(controller_.trace().tensors.size()) : 0;
}

void TensorRecordModel::refresh_all() {
    if (rows_ > 0) {
        Q_EMIT dataChanged(index(0, 0), index(rows_ - 1, column_count - 1));
    }
}

bool TensorRecordModel::changed(TensorId tensor) const {
    return controller_.state().tensor(tensor) != controller_.state_before().tensor(tensor);
}

std::vector<TensorId> TensorRecordModel::changed_tensors() const {
    std::vector<TensorId> result;
    for (int row = 0; row < rows_; ++row) {
        if (changed(row)) {
            result.push_back(row);
        }
    }
    return result;
}

int TensorRecordModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : rows_;
}

int TensorRecordModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : column_count;
}

QVariant TensorRecordModel::data(const QModelIndex& index, int role) const {
    const auto id = static_cast<TensorId>(index.row());
    const TraceTensor& tensor = controller_.trace().tensor(id);
    const TensorState& now = controller_.state().tensor(id);
    if (role == Qt::BackgroundRole) {
        return changed(id) ? QVariant(kChangedRow) : QVariant();
    }
    if (role == Qt::DecorationRole && index.column() == name) {
        return controller_.color(id);
    }
    if (role == Qt::ToolTipRole && index.column() == name) {
        return controller_.describe_tensor(id);
    }
    if (role == Qt::TextAlignmentRole) {
        return index.column() <= op || index.column() == memory ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    // Buffer, chunk and offset mean something only once the tensor has been given memory.
    const bool placed = now.life != TensorLife::none;
    const MemorySpan* span = controller_.timeline().span_at(id, controller_.position());
    switch (index.column()) {
    case name:
        return qstr(tensor.name);
    case op:
        return qstr(op_name(tensor.op));
    case children:
        return now.record.children;
    case views:
        return now.record.views;
    case buffer:
        return placed ? QVariant(now.record.buffer_id) : QVariant();
    case chunk:
        return placed ? QVariant(now.record.address.chunk) : QVariant();
    case offset:
        return placed ? QVariant(QString::number(now.record.address.offset)) : QVariant();
    case size:
        return QString::number(span != nullptr ? span->size : tensor.bytes);
    case allocated:
        return now.record.allocated ? tr("yes") : tr("no");
    case memory:
        if (tensor.external) {
            return tr("external");
        }
        if (tensor.is_view()) {
            return tr("view of %1").arg(qstr(controller_.trace().tensor(tensor.view_src).name));
        }
        switch (now.life) {
        case TensorLife::none:
            return tr("not yet");
        case TensorLife::live:
            return now.in_place_of != kNoTensor ? tr("live, in %1's memory").arg(qstr(controller_.trace().tensor(now.in_place_of).name))
                                                : tr("live");
        case TensorLife::handed_over:
            return tr("handed to %1").arg(qstr(controller_.trace().tensor(now.handed_to).name));
        case TensorLife::freed:
            return tr("freed");
        }
        return {};
    default:
        return {};
    }
}

QVariant TensorRecordModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) {
        return {};
    }
    if (orientation == Qt::Vertical) {
        return section;
    }
    static const char* const names[] = {QT_TR_NOOP("tensor"),    QT_TR_NOOP("op"),     QT_TR_NOOP("children"),
                                        QT_TR_NOOP("views"),     QT_TR_NOOP("buffer"), QT_TR_NOOP("chunk"),
                                        QT_TR_NOOP("offset"),    QT_TR_NOOP("size"),   QT_TR_NOOP("allocated"),
                                        QT_TR_NOOP("memory")};
    return tr(names[section]);
}

// --- StateTables ----------------------------------------------------------------------

StateTables::StateTables(SimulationController& controller, QWidget* parent)
    : QWidget(parent), controller_(controller), free_blocks_(new FreeBlockModel(controller, this)),
      records_(new TensorRecordModel(controller, this)), free_view_(new QTableView), record_view_(new QTableView) {
    auto setup = [](QTableView* view, QAbstractItemModel* model) {
        view->setModel(model);
        view->setSelectionBehavior(QAbstractItemView::SelectRows);
        view->setSelectionMode(QAbstractItemView::SingleSelection);
        view->setEditTriggers(QAbstractItemView::NoEditTriggers);
        view->verticalHeader()->setDefaultSectionSize(20);
        view->horizontalHeader()->setStretchLastSection(true);
        view->setWordWrap(false);
    };
    setup(free_view_, free_blocks_);
    setup(record_view_, records_);
    record_view_->verticalHeader()->setVisible(false);
    free_view_->verticalHeader()->setVisible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    // Side by side: the bottom dock is wide and short.
    auto* splitter = new QSplitter(Qt::Horizontal);
    auto titled = [](const QString& title, QWidget* body) {
        auto* box = new QWidget;
        auto* box_layout = new QVBoxLayout(box);
        box_layout->setContentsMargins(2, 2, 2, 2);
        box_layout->addWidget(new QLabel("<b>" + title + "</b>"));
        box_layout->addWidget(body);
        return box;
    };
    splitter->addWidget(titled(tr("Free blocks, per chunk by address"), free_view_));
    splitter->addWidget(titled(tr("Tensor records (hash nodes); yellow: changed by the last event"), record_view_));
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({440, 660});  // the free list's tail sizes run to 19 digits
    free_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Thousands of rows: sized once by hand, never measured row by row.
    record_view_->horizontalHeader()->setDefaultSectionSize(76);
    record_view_->setColumnWidth(TensorRecordModel::name, 170);
    layout->addWidget(splitter);

    connect(record_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) {
                    controller_.select(static_cast<TensorId>(current.row()));
                }
            });
    connect(&controller_, &SimulationController::selection_changed, this, [this](std::optional<TensorId> tensor) {
        if (tensor && record_view_->currentIndex().row() != *tensor) {
            record_view_->setCurrentIndex(records_->index(*tensor, 0));
        }
    });
    // Bring the first changed record into view after each step.
    connect(&controller_, &SimulationController::position_changed, this, [this] {
        for (TensorId tensor : controller_.last_event_tensors()) {
            if (records_->changed(tensor)) {
                record_view_->scrollTo(records_->index(tensor, 0));
                break;
            }
        }
    });
}

} // namespace gallocsim::gui
