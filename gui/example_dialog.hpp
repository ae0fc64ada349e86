#pragma once
// The parameters of a built-in example (layers, width, heads, tokens, weight type,
// buffers...), as many as the example reads: a row for each, built from the one table of
// example parameters (example_parameters(), model/examples.hpp) that the command line's
// flags come from too; what is left at "default" takes the example's own default.

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
