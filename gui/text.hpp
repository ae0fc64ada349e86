#pragma once
// Text helpers shared by the views: the simulator speaks UTF-8 std::string, Qt QString.

#include "simulator/model/amount_text.hpp"
#include "simulator/trace/trace.hpp"

#include <QString>
#include <QStringList>

#include <string_view>

namespace gallocsim::gui {

inline QString qstr(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// A tensor's shape with trailing 1s dropped: "[64, 256]", "[1]".
inline QString shape_text(const TraceTensor& tensor, QLatin1Char separator = QLatin1Char(',')) {
    int dims = kMaxDims;
    while (dims > 1 && tensor.ne[static_cast<std::size_t>(dims - 1)] == 1) {
        --dims;
    }
    QStringList parts;
    for (int i = 0; i < dims; ++i) {
        parts << QString::number(tensor.ne[static_cast<std::size_t>(i)]);
    }
    return separator == QLatin1Char(',') ? "[" + parts.join(", ") + "]" : parts.join(separator);
}

// Bytes for axes and tables, as the command line and the SVG write them.
inline QString human_bytes(std::size_t bytes) {
    return QString::fromStdString(binary_size(bytes));
}

} // namespace gallocsim::gui
