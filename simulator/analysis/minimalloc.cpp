#include "simulator/analysis/minimalloc.hpp"
#include "simulator/model/graph_file.hpp"
#include "simulator/model/input_file.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace gallocsim {

namespace {

enum class Column { id, lower, upper, end, size, alignment, offset };

struct ColumnName {
    std::string_view name;
    Column column;
};

// MiniMalloc's spellings: buffer / buffer_id mean id, start / begin mean lower, and an
// `end` column is inclusive.
constexpr ColumnName kColumns[] = {
    {"id", Column::id},         {"buffer", Column::id},   {"buffer_id", Column::id}, {"lower", Column::lower},
    {"start", Column::lower},   {"begin", Column::lower}, {"upper", Column::upper},  {"end", Column::end},
    {"size", Column::size},     {"alignment", Column::alignment}, {"offset", Column::offset},
};

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
        s.remove_suffix(1);
    }
    return s;
}

std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    std::size_t comma = line.find(',');
    while (comma != std::string_view::npos) {
        fields.push_back(trim(line.substr(start, comma - start)));
        start = comma + 1;
        comma = line.find(',', start);
    }
    fields.push_back(trim(line.substr(start)));
    return fields;
}

class CsvReader {
public:
    explicit CsvReader(std::string_view source) : source_(source) {}

    [[noreturn]] void fail(std::size_t line, const std::string& problem) const {
        throw MiniMallocError(std::string(source_) + ": line " + std::to_string(line) + ": " + problem);
    }

    [[noreturn]] void fail(std::size_t line, std::size_t field, const std::string& problem) const {
        fail(line, "column " + std::to_string(field + 1) + " (" + header_[field] + "): " + problem);
    }

    MiniMallocProblem read(std::string_view text) {
        std::size_t line_number = 0;
        std::size_t start = 0;
        while (start <= text.size()) {
            const std::size_t newline = std::min(text.find('\n', start), text.size());
            const std::string_view line = trim(text.substr(start, newline - start));
            ++line_number;
            start = newline + 1;
            if (line.empty()) {
                continue;
            }
            if (header_.empty()) {
                read_header(line, line_number);
            } else {
                read_row(line, line_number);
            }
        }
        if (header_.empty()) {
            throw MiniMallocError(std::string(source_) + ": empty file (expected a header such as id,lower,upper,size)");
        }
        return std::move(result_);
    }

private:
    void read_header(std::string_view line, std::size_t line_number) {
        for (std::string_view name : split_fields(line)) {
            header_.emplace_back(name);
            const auto known = std::ranges::find(kColumns, name, &ColumnName::name);
            if (known == std::end(kColumns)) {
                fail(line_number, "unknown column \"" + std::string(name) +
                                      "\" (expected id, lower, upper or end, size, and optionally offset, alignment)");
            }
            if (!columns_.emplace(known->column, header_.size() - 1).second) {
                fail(line_number, "column \"" + std::string(name) + "\" repeats an earlier one");
            }
        }
        if (columns_.contains(Column::upper) && columns_.contains(Column::end)) {
            fail(line_number, "has both \"upper\" and \"end\"; give one");
        }
        for (const auto& [column, name] : {std::pair{Column::id, "id"}, {Column::lower, "lower"}, {Column::size, "size"}}) {
            if (!columns_.contains(column)) {
                fail(line_number, std::string("missing column \"") + name + "\"");
            }
        }
        if (!columns_.contains(Column::upper) && !columns_.contains(Column::end)) {
            fail(line_number, "missing column \"upper\"");
        }
        if (columns_.contains(Column::offset)) {
            result_.offsets.emplace();
        }
    }

    long long integer(const std::vector<std::string_view>& fields, Column column, std::size_t line, long long min,
                      long long max) const {
        const std::size_t field = columns_.at(column);
        const std::string_view text = fields[field];
        long long value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error == std::errc::result_out_of_range && end == text.data() + text.size()) {
            // A whole number, too long for any size or time here: say so, not "not an integer".
            fail(line, field, "\"" + std::string(text) + "\" is out of range (" + std::to_string(min) + " to " +
                                  std::to_string(max) + ")");
        }
        if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
            fail(line, field, "\"" + std::string(text) + "\" is not an integer");
        }
        if (value < min || value > max) {
            fail(line, field, std::to_string(value) + " is out of range (" + std::to_string(min) + " to " +
                                  std::to_string(max) + ")");
        }
        return value;
    }

    void read_row(std::string_view line, std::size_t line_number) {
        const auto fields = split_fields(line);
        if (fields.size() != header_.size()) {
            fail(line_number, "has " + std::to_string(fields.size()) + " fields; the header has " +
                                  std::to_string(header_.size()));
        }
        LiveBlock block;
        block.name = std::string(fields[columns_.at(Column::id)]);
        if (block.name.empty()) {
            fail(line_number, columns_.at(Column::id), "is empty");
        }
        if (!ids_.insert(block.name).second) {
            fail(line_number, columns_.at(Column::id), "id \"" + block.name + "\" is used twice");
        }
        block.first = static_cast<int>(integer(fields, Column::lower, line_number, INT_MIN, INT_MAX - 1));
        if (columns_.contains(Column::end)) {
            block.last = static_cast<int>(integer(fields, Column::end, line_number, block.first, INT_MAX));
        } else {
            // upper is exclusive: the buffer must live for at least one step.
            block.last = static_cast<int>(integer(fields, Column::upper, line_number, static_cast<long long>(block.first) + 1,
                                                  static_cast<long long>(INT_MAX) + 1) - 1);
        }
        constexpr long long kLargest = LLONG_MAX / 4;  // leaves room to add sizes up without overflow
        block.size = static_cast<std::size_t>(integer(fields, Column::size, line_number, 0, kLargest));
        if (columns_.contains(Column::alignment)) {
            block.alignment = static_cast<std::size_t>(integer(fields, Column::alignment, line_number, 1, 1LL << 40));
        }
        if (result_.offsets) {
            result_.offsets->push_back(static_cast<std::size_t>(integer(fields, Column::offset, line_number, 0, kLargest)));
        }
        result_.problem.blocks.push_back(std::move(block));
    }

    std::string_view source_;
    std::vector<std::string> header_;
    std::map<Column, std::size_t> columns_;
    std::set<std::string> ids_;
    MiniMallocProblem result_;
};

// The format has no quoting: a comma or line break in a name would split the row.
std::string csv_id(const std::string& name, std::set<std::string>& used) {
    std::string id = name;
    std::ranges::replace_if(id, [](char c) { return c == ',' || c == '\n' || c == '\r'; }, '_');
    if (id.empty()) {
        id = "_";
    }
    std::string unique = id;
    for (int n = 2; !used.insert(unique).second; ++n) {
        unique = id + "_" + std::to_string(n);
    }
    return unique;
}

} // namespace

std::string to_minimalloc_csv(const ArenaProblem& problem, const std::vector<std::size_t>* offsets) {
    const bool aligned = std::ranges::any_of(problem.blocks, [](const LiveBlock& b) { return b.alignment > 1; });
    std::ostringstream out;
    out << "id,lower,upper,size" << (aligned ? ",alignment" : "") << (offsets ? ",offset" : "") << "\n";
    std::set<std::string> used;
    for (std::size_t i = 0; i < problem.blocks.size(); ++i) {
        const LiveBlock& b = problem.blocks[i];
        out << csv_id(b.name, used) << "," << b.first << "," << static_cast<long long>(b.last) + 1 << "," << b.size;
        if (aligned) {
            out << "," << std::max<std::size_t>(b.alignment, 1);
        }
        if (offsets) {
            out << "," << offsets->at(i);
        }
        out << "\n";
    }
    return out.str();
}

MiniMallocProblem parse_minimalloc_csv(std::string_view text, std::string_view source) {
    MiniMallocProblem result = CsvReader(source).read(text);
    const std::filesystem::path path(source);
    result.problem.name = path.stem().string();
    return result;
}

MiniMallocProblem load_minimalloc_csv(const std::filesystem::path& path) {
    std::string text;
    try {
        text = read_input_file(path);
    } catch (const GraphFileError& error) {
        throw MiniMallocError(error.what());
    }
    return parse_minimalloc_csv(text, path.string());
}

} // namespace gallocsim
