#pragma once
// The allocator's state at the cursor as tables: every chunk's free-block list, and every
// tensor's record (consumers and views left, buffer, chunk, offset, size, allocated). Rows
// the last step changed are highlighted, as Ripes paints the last-modified register.

#include "simulator/trace/trace.hpp"

#include <QAbstractTableModel>
#include <QWidget>

#include <vector>

class QTableView;

namespace gallocsim::gui {

class SimulationController;

class FreeBlockModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { buffer_type, chunk, block, offset, size, end, column_count };
    explicit FreeBlockModel(SimulationController& controller, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Row {
        int allocator = 0;
        int chunk = 0;
        int block = 0;
        FreeBlock free_block;
        bool tail = false;
        bool changed = false;  // not in the list before the last step
    };
    void refresh();

    SimulationController& controller_;
    std::vector<Row> rows_;
};

class TensorRecordModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { name, op, children, views, buffer, chunk, offset, size, allocated, memory, column_count };
    explicit TensorRecordModel(SimulationController& controller, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // Whether the last step changed the tensor's record (rows are tensors, in file order).
    bool changed(TensorId tensor) const;
    std::vector<TensorId> changed_tensors() const;

private:
    void refresh_all();

    SimulationController& controller_;
    int rows_ = 0;
};

// The two tables, one above the other; selecting a row selects the tensor everywhere.
class StateTables : public QWidget {
    Q_OBJECT
public:
    explicit StateTables(SimulationController& controller, QWidget* parent = nullptr);

    FreeBlockModel& free_blocks() { return *free_blocks_; }
    TensorRecordModel& records() { return *records_; }
    QTableView& record_view() { return *record_view_; }

private:
    SimulationController& controller_;
    FreeBlockModel* free_blocks_;
    TensorRecordModel* records_;
    QTableView* free_view_;
    QTableView* record_view_;
};

} // namespace gallocsim::gui
