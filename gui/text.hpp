#pragma once
// Text helpers shared by the views: the simulator speaks UTF-8 std::string, Qt QString.

#include "simulator/model/amount_text.hpp"
#include "simulator/model/visible_text.hpp"
#include "simulator/trace/explain.hpp"
#include "simulator/trace/trace.hpp"

#include <QString>
#include <QStringList>

#include <string>
#include <string_view>

namespace gallocsim::gui {

// Text from the simulator as the window shows it. Names come from graph files, which may
// hold control characters, bidi controls (U+202E would reverse the rest of an explanation),
// a BOM or invalid UTF-8: those show as escapes, as on the command line and in SVG
// (model/visible_text), so a name can neither hide nor turn the text around it.
inline QString qstr(std::string_view text) {
    if (is_visible_text(text)) {
        return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
    }
    const std::string shown = visible_text(text);
    return QString::fromUtf8(shown.data(), static_cast<qsizetype>(shown.size()));
}


// Bytes for axes and tables, as the command line and the SVG write them.
inline QString human_bytes(std::size_t bytes) {
    return QString::fromStdString(binary_size(bytes));
}

} // namespace gallocsim::gui
