#include "gui/example_dialog.hpp"

#include "gui/text.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <optional>
#include <utility>
#include <variant>

namespace gallocsim::gui {

namespace {

// "default (160)": what the example takes when the field is left alone.
QString default_text(const ExampleInfo& example, std::size_t option) {
    return option < example.defaults.size() ? QObject::tr("default (%1)").arg(qstr(example.defaults[option]))
                                            : QObject::tr("default");
}

QComboBox* choices(const QString& default_label, const QStringList& names) {
    auto* box = new QComboBox;
    box->addItem(default_label);
    box->addItems(names);
    return box;
}

// A field for one parameter, by its kind, and what writes its value into the options when it is
// not left at "default".
struct Field {
    QWidget* widget;
    std::function<void(ExampleOptions&)> read;
};

Field count_field(const ExampleParameter::Field& field, const QString& default_label) {
    auto* spin = new QSpinBox;
    spin->setRange(0, 1 << 20);
    spin->setSpecialValueText(default_label);  // 0: leave it to the example
    return {spin, [spin, count = std::get<std::optional<std::int64_t> ExampleOptions::*>(field)](ExampleOptions& options) {
                if (spin->value() > 0) {
                    options.*count = spin->value();
                }
            }};
}

Field switch_field(const ExampleParameter::Field& field) {
    auto* check = new QCheckBox;
    return {check, [check, on = std::get<bool ExampleOptions::*>(field)](ExampleOptions& options) {
                options.*on = check->isChecked();
            }};
}

// A type or a buffer setup, chosen by name.
Field named_field(const ExampleParameter& parameter, const QString& default_label) {
    QComboBox* box = nullptr;
    if (parameter.kind() == ExampleParameter::Kind::type) {
        box = choices(default_label, {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_k", "q6_k"});
    } else {
        box = choices(default_label, {"cpu", "cuda", "split"});
        box->setToolTip(QObject::tr("cpu: one CPU buffer; cuda: CUDA-like alignment and sizes; split: CUDA0 and CPU"));
    }
    return {box, [box, &parameter](ExampleOptions& options) {
                if (box->currentIndex() > 0) {
                    set_named_value(parameter, box->currentText().toStdString(), options);
                }
            }};
}

Field field_for(const ExampleParameter& parameter, const QString& default_label) {
    switch (parameter.kind()) {
    case ExampleParameter::Kind::count: return count_field(parameter.field, default_label);
    case ExampleParameter::Kind::toggle: return switch_field(parameter.field);
    case ExampleParameter::Kind::type:
    case ExampleParameter::Kind::buffers: break;
    }
    return named_field(parameter, default_label);
}

} // namespace

ExampleDialog::ExampleDialog(const ExampleInfo& example, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Example: %1").arg(qstr(example.name)));
    auto* layout = new QVBoxLayout(this);
    auto* description = new QLabel(qstr(example.description));
    description->setWordWrap(true);
    layout->addWidget(description);
    auto* form = new QFormLayout;
    // A row for each parameter the example takes, in its order, labelled as the table labels it.
    for (std::size_t option = 0; option < example.options.size(); ++option) {
        if (const ExampleParameter* parameter = find_example_parameter(example.options[option])) {
            Field field = field_for(*parameter, default_text(example, option));
            form->addRow(qstr(parameter->label), field.widget);
            readers_.push_back(std::move(field.read));
        }
    }
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

ExampleOptions ExampleDialog::options() const {
    ExampleOptions options;
    for (const auto& read : readers_) {
        read(options);
    }
    return options;
}

} // namespace gallocsim::gui
