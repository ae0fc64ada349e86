#include "gui/tensor_colors.hpp"

#include "simulator/model/tensor_colour.hpp"

namespace gallocsim::gui {

QColor tensor_color(std::string_view name) {
    const Rgb rgb = tensor_colour(name);
    return QColor(rgb.red, rgb.green, rgb.blue);
}

} // namespace gallocsim::gui
