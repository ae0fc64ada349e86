#pragma once
// Edits the graph's buffer types (alignment, largest buffer, alloc-size rule) so that the
// graph can be planned again under other settings: a small max size forces chunks.

#include "simulator/model/graph_file.hpp"

#include <QDialog>

#include <vector>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace gallocsim::gui {

class BufferSettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit BufferSettingsDialog(std::vector<BufferTypeSpec> types, QWidget* parent = nullptr);
    // The settings as edited; an empty or unparsable max size means no limit.
    std::vector<BufferTypeSpec> settings() const;

private:
    struct Row {
        QSpinBox* alignment;
        QLineEdit* max_size;
        QComboBox* rule;
    };
    std::vector<BufferTypeSpec> types_;
    std::vector<Row> rows_;
};

} // namespace gallocsim::gui
