#pragma once
// Every event of the trace with its explanation, and, in large type above the list, the
// two cues that make stepping teach: what the last step did, and what the next will do.
// Clicking an event moves the cursor just after it; breakpoint events carry a red mark.

#include <QAbstractListModel>
#include <QTextDocument>
#include <QWidget>

#include <cstddef>

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

// A few lines of rich text, as tall as the text needs but only growing while its width
// stays. Unlike a word-wrapped QLabel, new text usually only repaints it: the window is not
// laid out again on every step (which cost more than all the pictures' repaints together
// on a 5,000-node graph).
class CueText : public QWidget {
public:
    CueText(int lines, bool framed, QWidget* parent = nullptr);
    void set_html(const QString& html);

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    int minimum_height() const;
    void fit_height(bool allow_shrink);

    int lines_;
    bool framed_;
    QTextDocument document_;
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
    void repaint_rows_between(std::size_t from, std::size_t to);

    SimulationController& controller_;
    EventListModel* model_;
    CueText* step_label_;
    CueText* last_label_;
    CueText* next_label_;
    QListView* list_;
    std::size_t shown_position_ = 0;  // the cursor position the rows' colours show
};

} // namespace gallocsim::gui
