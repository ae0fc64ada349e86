#pragma once
// The GUI's colours: each tensor's is model/tensor_color.hpp's, the same as in the SVG
// pictures; the palette for everything that is not a particular tensor.

#include <QColor>

#include <string_view>

namespace gallocsim::gui {

QColor tensor_color(std::string_view name);

// Colours for things that are not a particular tensor.
namespace palette {
inline const QColor background{250, 250, 248};
inline const QColor unallocated{255, 255, 255};
inline const QColor freed{214, 214, 214};
inline const QColor external{96, 105, 117};
inline const QColor free_block{236, 240, 245};
inline const QColor hatch{150, 160, 175};
inline const QColor highlight{255, 170, 0};
inline const QColor selection{20, 110, 230};
inline const QColor cursor{220, 40, 40};
inline const QColor text{30, 30, 30};
inline const QColor muted_text{120, 120, 120};
inline const QColor outline{60, 60, 60};
} // namespace palette

} // namespace gallocsim::gui
