#pragma once
// `gallocsim versions [GGML_VERSION]`: the allocator states gallocsim plans by, the upstream
// change that made each, which rule each state has, and the version map; with a version (as
// ggml_version() reports it), the state the map gives it and why.

#include "simulator/cli/subcommand.hpp"

#include <iosfwd>
#include <optional>
#include <string>

namespace gallocsim::cli {

struct VersionsOptions {
    std::string version = {};                // empty: list everything
    std::optional<std::string> commit = {};  // as ggml_commit() reports it
    bool json = false;
};

int versions(const VersionsOptions& options, std::ostream& out, std::ostream& err);

// The subcommand on the command line (cli/subcommand.hpp).
Subcommand add_versions_command(CLI::App& app, const Console& io);

} // namespace gallocsim::cli
