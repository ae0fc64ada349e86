#pragma once
// What --json writes: one document, indented by 2, ASCII only (what is not printable ASCII is
// a \u escape, so the text passes the terminal's escaping unchanged and parses back exactly).
// Text that is not UTF-8 (a file's path may hold any bytes; no JSON string can) is written
// as U+FFFD: nlohmann would otherwise throw (type_error 316) and the command end in an
// "internal error" that quotes the library.

#include <nlohmann/json.hpp>

#include <string>

namespace gallocsim::cli {

template <class Json>
std::string json_report(const Json& document) {
    return document.dump(2, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
}

} // namespace gallocsim::cli
