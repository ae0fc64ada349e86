// `gallocsim versions [GGML_VERSION]`: the allocator states gallocsim plans by, the upstream
// change that made each, which rule each state has, and the version map; with a version (as
// ggml_version() reports it), the state the map gives it and why.

#include "reference/profile.hpp"
#include "reference/version_map.hpp"
#include "simulator/cli/errors.hpp"
#include "simulator/model/policy_file.hpp"

#include "simulator/cli/command_list.hpp"
#include "simulator/cli/json_output.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iomanip>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gallocsim::cli {

namespace {

struct VersionsOptions {
    std::string version = {};                // empty: list everything
    std::optional<std::string> commit = {};  // as ggml_commit() reports it
    bool json = false;
};

// The ops a state runs in place beyond the seed era's, by name.
std::string added_in_place_ops(const AllocatorProfile& profile) {
    std::string names;
    for (std::size_t i = 0; i < kOpCount; ++i) {
        const auto op = static_cast<Op>(i);
        if (profile.can_inplace(op) && !seed_era_profile().can_inplace(op)) {
            names += (names.empty() ? "" : " ") + std::string(op_name(op));
        }
    }
    return names;
}

std::vector<const AllocatorProfile*> oldest_first() { return history_between(seed_era_profile(), newest_profile()); }

std::string made_by(const AllocatorProfile& profile) {
    const RuleChange* change = change_that_made(profile);
    if (change == nullptr) {
        return std::string(profile.upstream);
    }
    std::string text(change->commit);
    if (change->commit != change->pr) {
        text += " (" + std::string(change->pr) + ")";
    }
    return text + ": " + std::string(change->sentence);
}

// A state's column heading: its commit, or its PR where no commit is known.
std::string short_id(const AllocatorProfile& profile) {
    const std::string_view commit = profile.commit;
    const auto hash = commit.find('#');
    return std::string(hash == std::string_view::npos ? commit.substr(0, 8) : commit.substr(hash));
}

// A row of columns 9 wide after a label, without trailing blanks.
std::string table_row(const std::string& label, const std::vector<std::string>& cells) {
    std::string line = label;
    line.resize(28, ' ');
    for (std::size_t i = 0; i < cells.size(); ++i) {
        line += cells[i];
        if (i + 1 < cells.size()) {
            line.resize(28 + 9 * (i + 1), ' ');
        }
    }
    return line + "\n";
}

void print_history(std::ostream& out) {
    const auto states = oldest_first();
    out << states.size() << " states of ggml's graph allocator, oldest first. --ggml-version (and a policy's base) takes\n"
        << "a state's name, an older name of it, a ggml version the map below pins to one state, a llama.cpp\n"
        << "build bNNNN, or a ggml or llama.cpp commit the map knows.\n\n";
    out << std::left << std::setw(19) << "state" << std::setw(12) << "date" << "made by\n";
    for (const AllocatorProfile* p : states) {
        out << std::left << std::setw(19) << p->name << std::setw(12) << p->date << made_by(*p) << "\n";
        for (std::string_view alias : p->aliases) {
            out << std::setw(31) << "" << "also named " << alias << "\n";
        }
    }
    out << "\nrules by state (columns: the commit that made each state)\n";
    std::vector<std::string> heads;
    for (const AllocatorProfile* p : states) {
        heads.push_back(short_id(*p));
    }
    out << table_row("", heads);
    // The rows are the rule table's (simulator/model/policy_file.cpp): a rule added there is shown here.
    for (const StateRuleRow& row : state_rule_rows()) {
        std::vector<std::string> cells;
        for (const AllocatorProfile* p : states) {
            cells.push_back(row.word(*p));
        }
        out << table_row(std::string(row.label), cells);
    }
    out << "in place beyond the seed era's 15 ops: " << added_in_place_ops(newest_profile()) << "\n";
}

// llama.cpp's builds: build N carries the newest state whose first build is at most N.
void print_builds(std::ostream& out) {
    out << "\nllama.cpp builds (bNNNN, as llama.cpp's release tags and --version name them) -> the state they carry\n";
    for (std::size_t i = 0; i < kLlamaCppBuilds.size(); ++i) {
        const LlamaCppBuild& build = kLlamaCppBuilds[i];
        const bool last = i + 1 == kLlamaCppBuilds.size();
        const std::string range = "b" + std::to_string(build.first_build) + " to " +
                                  (last ? "b" + std::to_string(kLlamaCppBuildsCheckedTo)
                                        : "b" + std::to_string(kLlamaCppBuilds[i + 1].first_build - 1));
        out << "  " << std::left << std::setw(22) << range << build.profile << " (llama.cpp " << build.commit
            << (build.first_tag != "b" + std::to_string(build.first_build) ? ", first tag " + std::string(build.first_tag) : "")
            << ")\n";
    }
    out << "  " << std::left << std::setw(22) << "later builds" << kLlamaCppBuilds.back().profile << " or "
        << newest_profile().name << " (the history the map read ends at b" << kLlamaCppBuildsCheckedTo << "): name one\n";
    out << "  " << std::left << std::setw(22) << "a commit" << "a state's, a release tag's or one of these llama.cpp "
        << "commits (7 hex digits or more); any other is refused\n";
}

void print_map(std::ostream& out) {
    out << "\nthe version map: what a program's ggml reports -> the state it ran\n";
    const auto releases = known_releases();
    std::vector<std::pair<std::string, std::string>> rows;
    for (std::size_t i = 0; i < releases.size();) {
        std::size_t j = i;
        while (j + 1 < releases.size() && releases[j + 1].profile == releases[i].profile) {
            ++j;
        }
        rows.emplace_back("ggml " + std::string(releases[i].version) + (j > i ? " to " + std::string(releases[j].version) : ""),
                          std::string(releases[i].profile));
        i = j + 1;
    }
    rows.emplace_back("ggml 0.0.N", "ggml-1e04f6ae or ggml-3b145175 (build numbers, 2025-07 to 2025-09)");
    rows.emplace_back("any other version", "the state of the nearest known version below it, with a note");
    rows.emplace_back("no ggml_version()", "told by which of these functions the library exports:");
    for (const auto& [what, state] : rows) {
        out << "  " << std::left << std::setw(22) << what << state << "\n";
    }
    for (const MarkerFunction& marker : kMarkerFunctions) {
        out << "    " << std::left << std::setw(32) << marker.name << "(" << marker.appeared << ") present: "
            << marker.at_least << " or newer; absent: " << marker.at_most_if_absent << " or older\n";
    }
    print_builds(out);
}

nlohmann::json history_json() {
    nlohmann::json states = nlohmann::json::array();
    for (const AllocatorProfile* p : oldest_first()) {
        nlohmann::json rules = nlohmann::json::object();
        for (const StateRuleRow& row : state_rule_rows()) {
            rules[std::string(row.label)] = row.word(*p);
        }
        nlohmann::json state{{"name", p->name}, {"date", p->date}, {"commit", p->commit}, {"upstream", p->upstream},
                             {"aliases", std::vector<std::string>(p->aliases.begin(), p->aliases.end())},
                             {"sources", std::vector<std::string>(p->sources.begin(), p->sources.end())},
                             {"rules", rules}};
        if (const RuleChange* change = change_that_made(*p)) {
            state["change"] = {{"commit", change->commit}, {"pr", change->pr}, {"date", change->date},
                               {"title", change->title}, {"field", change->field}, {"sentence", change->sentence}};
        }
        states.push_back(std::move(state));
    }
    nlohmann::json releases = nlohmann::json::array();
    for (const KnownRelease& release : known_releases()) {
        releases.push_back({{"version", release.version}, {"commit", release.commit}, {"state", release.profile}});
    }
    nlohmann::json markers = nlohmann::json::array();
    for (const MarkerFunction& marker : kMarkerFunctions) {
        markers.push_back({{"function", marker.name}, {"appeared", marker.appeared}, {"present", marker.at_least},
                           {"absent", marker.at_most_if_absent}});
    }
    nlohmann::json builds = nlohmann::json::array();
    for (const LlamaCppBuild& build : kLlamaCppBuilds) {
        builds.push_back({{"first_build", build.first_build}, {"first_tag", build.first_tag}, {"commit", build.commit},
                          {"state", build.profile}});
    }
    return {{"states", states}, {"releases", releases}, {"markers", markers}, {"llama_cpp_builds", builds},
            {"llama_cpp_builds_checked_to", kLlamaCppBuildsCheckedTo}};
}

// `versions NAME`: what --ggml-version and a policy's base make of NAME (the one resolver). A
// ggml version that could be several states is refused there; here the question is answered
// too, with what conform plans a capture reporting it by (the oldest the map allows).
int answer_name(const std::string& name, bool json, std::ostream& out) {
    const ResolvedVersion resolved = resolve_version(name);
    const VersionMatch inferred = resolved.profile == nullptr && is_ggml_version(name) ? match_ggml({name, std::nullopt, {}})
                                                                                     : VersionMatch{};
    if (json) {
        out << json_report(nlohmann::json{{"name", name},
                                          {"read_as", resolved.what},
                                          {"state", resolved.profile ? nlohmann::json(resolved.profile->name) : nlohmann::json()},
                                          {"problem", resolved.problem},
                                          {"capture_planned_as", inferred.profile ? nlohmann::json(inferred.profile->name)
                                                                                  : nlohmann::json()}})
            << "\n";
    } else if (resolved.profile != nullptr) {
        out << resolved.what << ": " << resolved.profile->name << "\n";
    } else if (inferred.profile != nullptr) {
        // The problem already names the states it could be; what is left to say is conform's choice.
        out << resolved.problem << "\n"
            << "(a capture whose ggml reports " << name << ": "
            << (inferred.note.empty() ? "planned as " + std::string(inferred.profile->name) : inferred.note) << ")\n";
    }
    if (resolved.profile == nullptr && inferred.profile == nullptr) {
        // Most problems name what was asked already; "unknown version" does not.
        throw UsageError(resolved.problem.find(name) == std::string::npos ? name + ": " + resolved.problem : resolved.problem);
    }
    return kDone;
}

int versions(const VersionsOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&]() -> int {
        if (options.version.empty() && !options.commit) {
            if (options.json) {
                out << json_report(history_json()) << "\n";
            } else {
                print_history(out);
                print_map(out);
            }
            return kDone;
        }
        if (!options.version.empty() && !options.commit) {
            return answer_name(options.version, options.json, out);
        }
        const ProgramGgml program{options.version.empty() ? std::nullopt : std::optional(options.version), options.commit, {}};
        const VersionMatch match = match_ggml(program);
        const std::string what = "ggml " + (options.version.empty() ? "commit " + *options.commit : options.version);
        if (options.json) {
            out << json_report(nlohmann::json{{"version", options.version},
                                  {"commit", options.commit ? nlohmann::json(*options.commit) : nlohmann::json()},
                                  {"state", match.profile ? nlohmann::json(match.profile->name) : nlohmann::json()},
                                  {"exact", match.exact},
                                  {"note", match.note}})
                << "\n";
        } else if (match.profile != nullptr) {
            out << what << ": " << match.profile->name << (match.exact ? "" : " (inferred)") << "\n";
            if (!match.note.empty()) {
                out << match.note << "\n";
            }
        }
        if (match.profile == nullptr) {
            throw UsageError(what + ": the version map cannot place it" + (match.note.empty() ? "" : ": " + match.note));
        }
        return kDone;
    });
}

} // namespace

// The subcommand on the command line (cli/command_list.hpp).
Subcommand add_versions_command(CLI::App& app, const Console& io) {
    auto options = std::make_shared<VersionsOptions>();
    auto* command = app.add_subcommand("versions", "the ggml allocator states gallocsim plans by, what changed in each, "
                                                   "and which state a ggml version carries");
    command->add_option("version", options->version,
                        "what --ggml-version takes: a state, a ggml version, a llama.cpp build bNNNN or a commit; which "
                        "state it names (with --commit: a program's ggml_version() and ggml_commit(), as conform reads them)");
    command->add_option("--commit", options->commit, "what ggml_commit() reports");
    command->add_flag("--json", options->json, "one JSON object (docs/json-reports.md)");
    return {command, [options, &io] { return versions(*options, io.out, io.err); }};
}

} // namespace gallocsim::cli
