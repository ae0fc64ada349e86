#pragma once
// The calls of an opened capture (a folder of sessions): one row per call, grouped by
// allocator, with its function, node count and whether it re-planned. Picking a row shows
// that call as the program made it; the note above the list says what the trace holds
// ("alloc_graph reused the plan of call 0 (reserve_n): ..."). Reads only the controller.

#include <QWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace gallocsim::gui {

class SimulationController;

class CapturePanel : public QWidget {
    Q_OBJECT
public:
    enum Column { allocator_column, call_column, function_column, nodes_column, buffers_column, replanned_column, column_count };
    explicit CapturePanel(SimulationController& controller, QWidget* parent = nullptr);

    QTreeWidget& calls() { return *calls_; }
    QLabel& note() { return *note_; }

private:
    void rebuild();          // another capture
    void show_selection();   // another call shown
    void picked(QTreeWidgetItem* item);

    SimulationController& controller_;
    QLabel* note_;
    QTreeWidget* calls_;
    bool updating_ = false;  // the panel itself moves the selection: not a pick
};

} // namespace gallocsim::gui
