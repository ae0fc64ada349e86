#include "gui/statistics_panel.hpp"

#include "gui/label_placer.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/tensor_color.hpp"
#include "gui/text.hpp"
#include "simulator/analysis/planner_table.hpp"
#include "simulator/trace/explain.hpp"

#include <QHeaderView>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBrowser>
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
    return QRectF(rect()).adjusted(72, 12, -12, -26);  // room for the axis labels ("1000 MiB") at the left
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
    // Gridlines at round values of the unit they are labelled in, with room above the top.
    const ByteAxis axis = byte_axis(top + top / 20, 5);
    const double y_max = axis.bytes(axis.steps);
    const double steps = std::max<double>(1.0, static_cast<double>(live.size() - 1));
    auto x_of = [&](double position) { return area.left() + position / steps * area.width(); };
    auto y_of = [&](double bytes) { return area.bottom() - bytes / y_max * area.height(); };

    QFont font = this->font();
    font.setPixelSize(10);
    painter.setFont(font);
    painter.setPen(QPen(palette::outline, 1));
    painter.drawLine(area.bottomLeft(), area.bottomRight());
    painter.drawLine(area.bottomLeft(), area.topLeft());
    // Every label goes through one placer: none is drawn over another (a test checks).
    LabelPlacer placer(rect());
    const QFontMetricsF metrics(font);
    for (unsigned tick = 0; tick <= axis.steps; ++tick) {
        const double y = y_of(axis.bytes(tick));
        painter.setPen(QPen(QColor(225, 225, 225), 1));
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
        painter.setPen(palette::muted_text);
        const QString text = QString::fromStdString(axis.label(tick));
        placer.draw(painter, text, {QPointF(area.left() - 5 - metrics.horizontalAdvance(text), y - metrics.height() / 2)});
    }
    placer.draw(painter, tr("event"), {QPointF(area.center().x() - metrics.horizontalAdvance(tr("event")) / 2, area.bottom() + 5)});

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

    // Lines at the same height share one label ("lower bound = greedy by size: 96 B").
    for (std::size_t i = 0; i < lines_.size(); ++i) {
        const ChartLine& line = lines_[i];
        const auto earlier = std::find_if(lines_.begin(), lines_.begin() + static_cast<std::ptrdiff_t>(i),
                                          [&](const ChartLine& other) { return other.bytes == line.bytes; });
        if (earlier != lines_.begin() + static_cast<std::ptrdiff_t>(i)) {
            continue;
        }
        QStringList labels;
        for (const ChartLine& other : lines_) {
            if (other.bytes == line.bytes) {
                labels << other.label;
            }
        }
        const double y = y_of(static_cast<double>(line.bytes));
        painter.setPen(QPen(line.color, 1.2, Qt::DashLine));
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
        painter.setPen(line.color);
        // Above its line at the right, else below it, else at the left: lines a few pixels
        // apart (ggml's plan just above the bound) keep both labels readable.
        const QString text = QStringLiteral("%1: %2").arg(labels.join(" = "), human_bytes(line.bytes));
        const double text_width = metrics.horizontalAdvance(text) + 2;
        const double right = area.right() - 4 - text_width, left = area.left() + 4;
        const double above = y - 1 - metrics.height(), below = y + 1;
        // On a light ground, so the curve does not run through the words.
        const QSizeF size(text_width, metrics.height());
        if (const auto box = placer.place({QRectF(QPointF(right, above), size), QRectF(QPointF(right, below), size),
                                           QRectF(QPointF(left, above), size), QRectF(QPointF(left, below), size)})) {
            painter.fillRect(*box, QColor(255, 255, 255, 220));
            painter.drawText(*box, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextDontClip, text);
        }
    }

    const double cursor_x = x_of(static_cast<double>(controller_.position()));
    painter.setPen(QPen(palette::cursor, 1.5));
    painter.drawLine(QPointF(cursor_x, area.top()), QPointF(cursor_x, area.bottom()));
    const QString text = tr("%1 live").arg(human_bytes(live[controller_.position()]));
    const double text_width = metrics.horizontalAdvance(text) + 2;
    const double row = metrics.height() + 1;
    placer.draw(painter, text, {QPointF(cursor_x + 3, area.top()), QPointF(cursor_x - 3 - text_width, area.top()),
                                QPointF(cursor_x + 3, area.top() + row), QPointF(cursor_x - 3 - text_width, area.top() + row),
                                QPointF(cursor_x + 3, area.top() + 2 * row), QPointF(cursor_x - 3 - text_width, area.top() + 2 * row)});
}

// --- StatisticsPanel ------------------------------------------------------------------

StatisticsPanel::StatisticsPanel(SimulationController& controller, QWidget* parent)
    : LazyPanel(controller, parent), controller_(controller), chart_(new LiveBytesChart(controller)), table_(new QTableWidget),
      notes_(new QTextBrowser) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    // The chart, the figures (as wide as they need: never cut), and the notes, which wrap.
    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(chart_);
    splitter->addWidget(table_);
    splitter->addWidget(notes_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 0);
    splitter->setStretchFactor(2, 2);
    splitter->setChildrenCollapsible(false);
    layout->addWidget(splitter);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(false);
    table_->setWordWrap(false);
    table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table_->verticalHeader()->setDefaultSectionSize(20);
    notes_->setMinimumWidth(160);
    notes_->document()->setDocumentMargin(4);
}

void StatisticsPanel::rebuild() {
    table_->clear();
    table_->setRowCount(0);
    notes_->clear();
    if (!controller_.has_graph()) {
        chart_->set_lines({});
        return;
    }
    // The table `gallocsim compare` prints, one column per buffer type. Its notes (chunks,
    // what the exact search managed, where the bounds are reached) go beside it, one paragraph
    // per row, and to each figure's tooltip.
    const Comparison& comparison = controller_.comparison();
    const PlannerTable sizes = planner_table(controller_.file(), comparison);
    const auto columns = static_cast<int>(comparison.arenas.size());
    QStringList headers{tr("figure")};
    for (const ArenaComparison& arena : comparison.arenas) {
        headers << tr("%1 (%2 tensors)").arg(qstr(arena.buffer_type)).arg(arena.tensors);
    }
    table_->setColumnCount(columns + 1);
    table_->setHorizontalHeaderLabels(headers);
    table_->setRowCount(static_cast<int>(sizes.rows.size()));
    QString notes_html;
    for (std::size_t r = 0; r < sizes.rows.size(); ++r) {
        const PlannerRow& row = sizes.rows[r];
        const auto table_row = static_cast<int>(r);
        auto* label = new QTableWidgetItem(qstr(row.label));
        label->setToolTip(qstr(row.meaning));
        table_->setItem(table_row, 0, label);
        QStringList notes;
        for (int column = 0; column < columns; ++column) {
            const PlannerCell& cell = row.cells[static_cast<std::size_t>(column)];
            auto* item = new QTableWidgetItem(human_bytes(cell.bytes));
            const QString note = qstr(row.note_text(cell));
            item->setToolTip(qstr(byte_count(cell.bytes)) + (note.isEmpty() ? QString() : "\n" + note));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table_->setItem(table_row, column + 1, item);
            if (!note.isEmpty()) {
                notes << (columns > 1 ? qstr(comparison.arenas[static_cast<std::size_t>(column)].buffer_type) + ": " : QString()) + note;
            }
        }
        if (!notes.isEmpty()) {
            notes_html += QStringLiteral("<p><b>%1</b>: %2</p>").arg(qstr(row.label).toHtmlEscaped(), notes.join("; ").toHtmlEscaped());
        }
    }
    notes_->setHtml(notes_html);
    table_->resizeColumnsToContents();
    table_->setFixedWidth(table_->horizontalHeader()->length() + 2 * table_->frameWidth());
    // The chart shows all buffers together, so its lines are the sums over buffer types
    // (no reuse is left to the table: it would flatten the curve).
    const PlannerRow& best_known = sizes.best_alternative();
    chart_->set_lines({{qstr(sizes.row(PlannerRowKind::ggml).label), sizes.row(PlannerRowKind::ggml).total(), kPlanColor},
                       {qstr(sizes.row(PlannerRowKind::lower_bound).label), sizes.row(PlannerRowKind::lower_bound).total(), QColor(40, 150, 80)},
                       {qstr(best_known.label), best_known.total(), QColor(200, 130, 0)}});
}

} // namespace gallocsim::gui
