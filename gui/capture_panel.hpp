#pragma once
// The calls of an opened capture (a folder of sessions): one row per call, grouped by
// allocator, with its function, node count and whether it re-planned. Picking a row shows
// that call as the program made it; the note above the list says what the trace holds
// ("alloc_graph reused the plan of call 0 (reserve_n): ..."). For a program run live, a line
// above says whether it runs, waits or ended, and each call has gallocsim's verdict on it
// (pass, or FAIL in red with the first difference in its tooltip). Reads only the controller.

#include <QWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace gallocsim::gui {

class SimulationController;

class CapturePanel : public QWidget {
    Q_OBJECT
public:
    enum Column {
        allocator_column,
        call_column,
        function_column,
        nodes_column,
        buffers_column,
        replanned_column,
        check_column,
        column_count
    };
    explicit CapturePanel(SimulationController& controller, QWidget* parent = nullptr);

    QTreeWidget& calls() { return *calls_; }
    QLabel& note() { return *note_; }
    QLabel& live_line() { return *live_line_; }

private:
    void rebuild();          // another capture
    void show_selection();   // another call shown
    void picked(QTreeWidgetItem* item);
    void show_live();  // the live run's line

    SimulationController& controller_;
    QLabel* live_line_;
    QLabel* note_;
    QTreeWidget* calls_;
    bool updating_ = false;  // the panel itself moves the selection: not a pick
};

} // namespace gallocsim::gui
