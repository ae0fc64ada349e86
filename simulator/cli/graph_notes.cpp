#include "simulator/cli/graph_notes.hpp"

#include "simulator/analysis/graph_order.hpp"

namespace gallocsim::cli {

nlohmann::ordered_json early_reads_json(const GraphFile& file) {
    auto list = nlohmann::ordered_json::array();
    const auto& tensors = file.context.tensors();
    for (const EarlyRead& read : early_reads(file)) {
        list.push_back({{"kind", kind_key(read.kind)},
                        {"node", tensors[read.reader].name},
                        {"node_step", read.reader_node + 1},
                        {"source", tensors[read.source].name},
                        {"source_node_step", read.source_node + 1},
                        {"text", sentence(file, read)}});
    }
    return list;
}

nlohmann::ordered_json note_early_reads(const GraphFile& file, const std::string& input, std::ostream& err) {
    auto warnings = early_reads_json(file);
    for (const auto& warning : warnings) {
        err << "note: " << input << ": " << warning["text"].get<std::string>() << "\n";
    }
    return warnings;
}

} // namespace gallocsim::cli
