#pragma once
// Text helpers shared by the views: the simulator speaks UTF-8 std::string, Qt QString.

#include "simulator/model/amount_text.hpp"
#include "simulator/trace/explain.hpp"
#include "simulator/trace/trace.hpp"

#include <QString>
#include <QStringList>

#include <string_view>

namespace gallocsim::gui {

inline QString qstr(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}


// Bytes for axes and tables, as the command line and the SVG write them.
inline QString human_bytes(std::size_t bytes) {
    return QString::fromStdString(binary_size(bytes));
}

} // namespace gallocsim::gui
