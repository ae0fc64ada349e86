#include "gui/example_dialog.hpp"

#include "gui/text.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <map>

namespace gallocsim::gui {

namespace {

using Count = std::optional<std::int64_t> ExampleOptions::*;

const std::map<std::string, std::pair<Count, const char*>> kCounts{
    {"layers", {&ExampleOptions::layers, QT_TRANSLATE_NOOP("ExampleDialog", "layers")}},
    {"embd", {&ExampleOptions::embd, QT_TRANSLATE_NOOP("ExampleDialog", "model width (embd)")}},
    {"heads", {&ExampleOptions::heads, QT_TRANSLATE_NOOP("ExampleDialog", "attention heads")}},
    {"ff", {&ExampleOptions::ff, QT_TRANSLATE_NOOP("ExampleDialog", "feed-forward width")}},
    {"tokens", {&ExampleOptions::tokens, QT_TRANSLATE_NOOP("ExampleDialog", "tokens in the batch")}},
    {"vocab", {&ExampleOptions::vocab, QT_TRANSLATE_NOOP("ExampleDialog", "vocabulary")}},
    {"outputs", {&ExampleOptions::outputs, QT_TRANSLATE_NOOP("ExampleDialog", "tokens with logits")}},
};

const std::map<std::string, std::pair<bool ExampleOptions::*, const char*>> kSwitches{
    {"inplace", {&ExampleOptions::inplace, QT_TRANSLATE_NOOP("ExampleDialog", "in-place ops (views)")}},
    {"mask", {&ExampleOptions::mask, QT_TRANSLATE_NOOP("ExampleDialog", "attention mask input")}},
    {"clamp", {&ExampleOptions::clamp, QT_TRANSLATE_NOOP("ExampleDialog", "clamped Q, K, V (olmo's clamp_kqv)")}},
};

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

} // namespace

ExampleDialog::ExampleDialog(const ExampleInfo& example, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Example: %1").arg(qstr(example.name)));
    auto* layout = new QVBoxLayout(this);
    auto* description = new QLabel(qstr(example.description));
    description->setWordWrap(true);
    layout->addWidget(description);
    auto* form = new QFormLayout;
    for (std::size_t option = 0; option < example.options.size(); ++option) {
        const std::string& flag = example.options[option];
        if (const auto count = kCounts.find(flag); count != kCounts.end()) {
            auto* spin = new QSpinBox;
            spin->setRange(0, 1 << 20);
            spin->setSpecialValueText(default_text(example, option));  // 0: leave it to the example
            form->addRow(tr(count->second.second), spin);
            readers_.push_back([spin, field = count->second.first](ExampleOptions& options) {
                if (spin->value() > 0) {
                    options.*field = spin->value();
                }
            });
        } else if (const auto toggle = kSwitches.find(flag); toggle != kSwitches.end()) {
            auto* check = new QCheckBox;
            form->addRow(tr(toggle->second.second), check);
            readers_.push_back([check, field = toggle->second.first](ExampleOptions& options) {
                options.*field = check->isChecked();
            });
        } else if (flag == "weights") {
            auto* box = choices(default_text(example, option), {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_k", "q6_k"});
            form->addRow(tr("weight type"), box);
            readers_.push_back([box](ExampleOptions& options) {
                if (box->currentIndex() > 0) {
                    options.weights = parse_type(box->currentText().toStdString());
                }
            });
        } else if (flag == "buffers") {
            auto* box = choices(default_text(example, option), {"cpu", "cuda", "split"});
            box->setToolTip(tr("cpu: one CPU buffer; cuda: CUDA-like alignment and sizes; split: CUDA0 and CPU"));
            form->addRow(tr("buffers"), box);
            readers_.push_back([box](ExampleOptions& options) {
                if (box->currentIndex() > 0) {
                    options.buffers = parse_buffer_setup(box->currentText().toStdString());
                }
            });
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
