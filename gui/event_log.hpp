#pragma once
// Every event of the trace with its explanation, and, in large type above the list, the
// two cues that make stepping teach: what the last step did, and what the next will do.
// Clicking an event moves the cursor just after it; breakpoint events carry a red mark.

#include <QAbstractListModel>
#include <QWidget>

class QLabel;
class QListView;

namespace gallocsim::gui {

class SimulationController;

class EventListModel : public QAbstractListModel {
    Q_OBJECT
public:
    explicit EventListModel(SimulationController& controller, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;

private:
    SimulationController& controller_;
    int rows_ = 0;
};

class EventLog : public QWidget {
    Q_OBJECT
public:
    explicit EventLog(SimulationController& controller, QWidget* parent = nullptr);

    QString just_happened() const;
    QString happens_next() const;
    QListView& list() { return *list_; }

private:
    void refresh();

    SimulationController& controller_;
    EventListModel* model_;
    QLabel* step_label_;
    QLabel* last_label_;
    QLabel* next_label_;
    QListView* list_;
};

} // namespace gallocsim::gui
