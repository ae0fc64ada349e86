#include "gui/buffer_settings_dialog.hpp"

#include "gui/text.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QVBoxLayout>

namespace gallocsim::gui {

BufferSettingsDialog::BufferSettingsDialog(std::vector<BufferTypeSpec> types, QWidget* parent)
    : QDialog(parent), types_(std::move(types)) {
    setWindowTitle(tr("Buffer types"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Change the buffer types and plan the graph again. A max size smaller than the "
                                    "plan makes the allocator split the buffer into chunks.")));
    auto* grid = new QGridLayout;
    grid->addWidget(new QLabel(tr("<b>buffer type</b>")), 0, 0);
    grid->addWidget(new QLabel(tr("<b>alignment</b>")), 0, 1);
    grid->addWidget(new QLabel(tr("<b>max size (bytes)</b>")), 0, 2);
    grid->addWidget(new QLabel(tr("<b>alloc size</b>")), 0, 3);
    for (std::size_t i = 0; i < types_.size(); ++i) {
        const BufferTypeSpec& spec = types_[i];
        const int line = static_cast<int>(i) + 1;
        Row row{new QSpinBox, new QLineEdit, new QComboBox};
        row.alignment->setRange(1, 1 << 20);
        row.alignment->setValue(static_cast<int>(spec.alignment));
        row.max_size->setPlaceholderText(tr("no limit"));
        row.max_size->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]{0,20}"), row.max_size));
        if (spec.max_size) {
            row.max_size->setText(QString::number(*spec.max_size));
        }
        for (AllocSizeRule rule : {AllocSizeRule::nbytes, AllocSizeRule::cuda}) {
            row.rule->addItem(qstr(alloc_size_rule_name(rule)));
        }
        row.rule->setCurrentText(qstr(alloc_size_rule_name(spec.alloc_size)));
        grid->addWidget(new QLabel(qstr(spec.name)), line, 0);
        grid->addWidget(row.alignment, line, 1);
        grid->addWidget(row.max_size, line, 2);
        grid->addWidget(row.rule, line, 3);
        rows_.push_back(row);
    }
    layout->addLayout(grid);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Plan again"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

std::vector<BufferTypeSpec> BufferSettingsDialog::settings() const {
    std::vector<BufferTypeSpec> result = types_;
    for (std::size_t i = 0; i < result.size(); ++i) {
        const Row& row = rows_[i];
        result[i].alignment = static_cast<std::size_t>(row.alignment->value());
        bool ok = false;
        const qulonglong max_size = row.max_size->text().toULongLong(&ok);
        result[i].max_size = ok ? std::optional<std::size_t>(max_size) : std::nullopt;
        result[i].alloc_size = parse_alloc_size_rule(row.rule->currentText().toStdString()).value_or(AllocSizeRule::nbytes);
    }
    return result;
}

} // namespace gallocsim::gui
