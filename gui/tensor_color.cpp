#include "gui/tensor_color.hpp"

#include "simulator/model/tensor_color.hpp"

namespace gallocsim::gui {

QColor tensor_color(std::string_view name) {
    const Rgb rgb = tensor_rgb(name);
    return QColor(rgb.red, rgb.green, rgb.blue);
}

} // namespace gallocsim::gui
