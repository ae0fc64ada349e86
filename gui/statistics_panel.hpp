#pragma once
// Figures about the plan: live bytes at every step as a chart (with the cursor, the plan's
// size and the reference lines of the other planners), a table of sizes per buffer type:
// ggml's plan, the lower bound (the most bytes live at once), no reuse at all, and the
// alternative planners on the same lifetimes; and the notes on those figures.

#include "gui/lazy_panel.hpp"

#include <QWidget>

#include <cstddef>
#include <vector>

class QTableWidget;
class QTextBrowser;

namespace gallocsim::gui {

class SimulationController;

// A horizontal line across the chart.
struct ChartLine {
    QString label;
    std::size_t bytes = 0;
    QColor color;
};

class LiveBytesChart : public QWidget {
    Q_OBJECT
public:
    explicit LiveBytesChart(SimulationController& controller, QWidget* parent = nullptr);
    void set_lines(std::vector<ChartLine> lines);
    QSize sizeHint() const override { return {480, 220}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRectF plot_area() const;

    SimulationController& controller_;
    std::vector<ChartLine> lines_;
};

class StatisticsPanel : public LazyPanel {
    Q_OBJECT
public:
    explicit StatisticsPanel(SimulationController& controller, QWidget* parent = nullptr);
    QTableWidget& table() { return *table_; }
    LiveBytesChart& chart() { return *chart_; }
    QTextBrowser& notes() { return *notes_; }

private:
    // The comparison plans the graph again, so it waits until the panel is seen.
    void rebuild() override;

    SimulationController& controller_;
    LiveBytesChart* chart_;
    QTableWidget* table_;
    QTextBrowser* notes_;
};

} // namespace gallocsim::gui
