#pragma once
// The parameters of a built-in example (layers, width, heads, tokens, weight type,
// buffers...), as many as the example reads; what is left at "default" takes the
// example's own default.

#include "simulator/model/examples.hpp"

#include <QDialog>

#include <functional>
#include <vector>

namespace gallocsim::gui {

class ExampleDialog : public QDialog {
    Q_OBJECT
public:
    explicit ExampleDialog(const ExampleInfo& example, QWidget* parent = nullptr);
    ExampleOptions options() const;

private:
    // Each field writes its value into the options when it is not left at "default".
    std::vector<std::function<void(ExampleOptions&)>> readers_;
};

} // namespace gallocsim::gui
