#pragma once
// A corpus: the graphs a command takes from paths (graph files, folders of them, capture
// folders found as given or inside a folder). conform checks one; the policy comparison plans
// one by each policy.

#include "simulator/model/graph_file.hpp"

#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace gallocsim {

struct CorpusInputs {
    std::vector<std::filesystem::path> files;     // graph files, each folder's sorted
    std::vector<std::filesystem::path> captures;  // capture folders (their graphs/ are not files of their own)
    std::vector<std::string> problems;            // one sentence per path that gave nothing
};

// A folder is searched for *.json graph files and capture folders; a file inside a capture
// is refused (the capture's folder is what holds its settings).
CorpusInputs find_corpus_inputs(std::span<const std::string> paths);

// One graph of the corpus, named as reports name it.
struct CorpusGraph {
    std::string label;  // the file, or "CAPTURE call N" (the capture folder's name, the first call that planned it)
    GraphFile file;
    std::filesystem::path path;  // the graph file it was read from (a capture's graphs/ID.json); empty for an example
};

// The distinct graphs a capture's calls planned (each graph file once, as its first call
// loads it, in call order), from every session of the capture. Throws GraphFileError for a
// session or graph that cannot be read.
std::vector<CorpusGraph> capture_graphs(const std::filesystem::path& folder);

} // namespace gallocsim
