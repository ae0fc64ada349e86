#include "gui/statistics_panel.hpp"

#include "gui/simulation_controller.hpp"
#include "gui/tensor_colors.hpp"
#include "gui/text.hpp"
#include "simulator/explain.hpp"

#include <QHeaderView>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace gallocsim::gui {

namespace {
const QColor kLiveColor{40, 110, 200};
const QColor kPlanColor{200, 50, 50};
} // namespace

// --- LiveBytesChart -------------------------------------------------------------------

LiveBytesChart::LiveBytesChart(SimulationController& controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
    setMinimumSize(240, 140);
    connect(&controller_, &SimulationController::position_changed, this, [this] { update(); });
    connect(&controller_, &SimulationController::graph_changed, this, [this] { update(); });
}

void LiveBytesChart::set_lines(std::vector<ChartLine> lines) {
    lines_ = std::move(lines);
    update();
}

QRectF LiveBytesChart::plot_area() const {
    return QRectF(rect()).adjusted(64, 12, -12, -26);
}

void LiveBytesChart::mousePressEvent(QMouseEvent* event) {
    const QRectF area = plot_area();
    if (!controller_.has_graph() || area.width() <= 0) {
        return;
    }
    const double share = std::clamp((event->position().x() - area.left()) / area.width(), 0.0, 1.0);
    controller_.jump(static_cast<std::size_t>(share * static_cast<double>(controller_.event_count()) + 0.5));
}

void LiveBytesChart::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette::background);
    if (!controller_.has_graph()) {
        return;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    const auto live = controller_.cursor().live_bytes();
    const QRectF area = plot_area();
    std::size_t top = 1;
    for (std::size_t bytes : live) {
        top = std::max(top, bytes);
    }
    for (const ChartLine& line : lines_) {
        top = std::max(top, line.bytes);
    }
    const double y_max = static_cast<double>(top) * 1.08;
    const double steps = std::max<double>(1.0, static_cast<double>(live.size() - 1));
    auto x_of = [&](double position) { return area.left() + position / steps * area.width(); };
    auto y_of = [&](double bytes) { return area.bottom() - bytes / y_max * area.height(); };

    QFont font = this->font();
    font.setPixelSize(10);
    painter.setFont(font);
    painter.setPen(QPen(palette::outline, 1));
    painter.drawLine(area.bottomLeft(), area.bottomRight());
    painter.drawLine(area.bottomLeft(), area.topLeft());
    for (int i = 0; i <= 4; ++i) {
        const double bytes = y_max * i / 4;
        const double y = y_of(bytes);
        painter.setPen(QPen(QColor(225, 225, 225), 1));
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
        painter.setPen(palette::muted_text);
        painter.drawText(QRectF(0, y - 8, area.left() - 4, 16), Qt::AlignRight | Qt::AlignVCenter,
                         qstr(byte_count(static_cast<std::size_t>(bytes))));
    }
    painter.drawText(QRectF(area.left(), area.bottom() + 4, area.width(), 16), Qt::AlignCenter, tr("step"));

    // Live bytes: one vertical stroke per pixel column spans that column's min and max, so
    // tens of thousands of steps draw as fast as a hundred.
    QPainterPath curve;
    const int columns = std::max(1, static_cast<int>(area.width()));
    for (int column = 0; column < columns; ++column) {
        const auto from = static_cast<std::size_t>(column * steps / columns);
        const auto to = std::min(live.size() - 1, static_cast<std::size_t>((column + 1) * steps / columns));
        std::size_t low = live[from], high = live[from];
        for (std::size_t p = from; p <= to; ++p) {
            low = std::min(low, live[p]);
            high = std::max(high, live[p]);
        }
        const double x = area.left() + column;
        if (column == 0) {
            curve.moveTo(x, y_of(static_cast<double>(high)));
        }
        curve.lineTo(x, y_of(static_cast<double>(low)));
        curve.lineTo(x, y_of(static_cast<double>(high)));
    }
    painter.setPen(QPen(kLiveColor, 1.5));
    painter.drawPath(curve);

    for (const ChartLine& line : lines_) {
        const double y = y_of(static_cast<double>(line.bytes));
        painter.setPen(QPen(line.color, 1.2, Qt::DashLine));
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
        painter.setPen(line.color);
        painter.drawText(QRectF(area.left() + 4, y - 14, area.width() - 8, 13), Qt::AlignRight | Qt::AlignBottom,
                         QStringLiteral("%1: %2").arg(line.label, qstr(byte_count(line.bytes))));
    }

    const double cursor_x = x_of(static_cast<double>(controller_.position()));
    painter.setPen(QPen(palette::cursor, 1.5));
    painter.drawLine(QPointF(cursor_x, area.top()), QPointF(cursor_x, area.bottom()));
    painter.drawText(QRectF(cursor_x + 3, area.top(), 200, 14), Qt::AlignLeft | Qt::AlignTop,
                     tr("%1 live").arg(qstr(byte_count(live[controller_.position()]))));
}

// --- StatisticsPanel ------------------------------------------------------------------

StatisticsPanel::StatisticsPanel(SimulationController& controller, QWidget* parent)
    : QWidget(parent), controller_(controller), chart_(new LiveBytesChart(controller)), table_(new QTableWidget) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(chart_);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setStretchLastSection(true);
    connect(&controller_, &SimulationController::graph_changed, this, &StatisticsPanel::rebuild);
    rebuild();
}

void StatisticsPanel::rebuild() {
    table_->clear();
    table_->setRowCount(0);
    table_->setColumnCount(2);
    table_->setHorizontalHeaderLabels({tr("figure"), tr("bytes")});
    if (!controller_.has_graph()) {
        chart_->set_lines({});
        return;
    }
    const SimState& end = controller_.final_state();
    const MemoryStats stats = memory_stats(end);
    const auto live = controller_.cursor().live_bytes();
    const std::size_t peak = live.empty() ? 0 : *std::ranges::max_element(live);
    auto add = [&](const QString& figure, std::size_t bytes) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        table_->setItem(row, 0, new QTableWidgetItem(figure));
        auto* value = new QTableWidgetItem(QStringLiteral("%1  (%2)").arg(bytes).arg(qstr(byte_count(bytes))));
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table_->setItem(row, 1, value);
    };
    add(tr("ggml's plan (all buffers)"), stats.high_water);
    add(tr("most bytes live at one step"), peak);
    chart_->set_lines({{tr("ggml's plan"), stats.high_water, kPlanColor}});
    table_->resizeColumnsToContents();
}

} // namespace gallocsim::gui
