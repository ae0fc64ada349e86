#include "simulator/cli/policy_command.hpp"

#include "simulator/analysis/policy_comparison.hpp"
#include "simulator/analysis/render.hpp"
#include "simulator/cli/command_list.hpp"
#include "simulator/cli/errors.hpp"
#include "simulator/cli/json_output.hpp"
#include "simulator/model/amount_text.hpp"
#include "simulator/model/buffer_settings.hpp"
#include "simulator/model/corpus.hpp"
#include "simulator/model/policy_file.hpp"
#include "simulator/model/visible_text.hpp"
#include "reference/version_map.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <memory>
#include <sstream>

namespace gallocsim::cli {
namespace {

std::string signed_size(std::size_t reference, std::size_t value) {
    if (value == reference) {
        return "same";
    }
    return value < reference ? "-" + binary_size(reference - value) : "+" + binary_size(value - reference);
}

std::string ratio(std::size_t value, std::size_t bound) {
    if (bound == 0) {
        return "-";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", static_cast<double>(value) / static_cast<double>(bound));
    return text;
}

// The corpus from the command line: paths as conform takes them, or built-in example names.
std::vector<CorpusGraph> load_policy_corpus(const PolicyCompareOptions& options) {
    std::vector<CorpusGraph> graphs;
    const BufferOverrides overrides = buffer_overrides(options.buffers);
    for (const std::string& input : options.inputs) {
        std::vector<CorpusGraph> found;
        std::error_code ec;
        if (input == "-") {
            throw UsageError("-: policy compare plans files and folders, not standard input (it may read several graphs)");
        }
        if (!std::filesystem::exists(input, ec)) {
            found.push_back({input, load_graph_input({.input = input}), {}});
        } else {
            const std::string paths[] = {input};
            CorpusInputs corpus = find_corpus_inputs(paths);
            if (!corpus.problems.empty()) {
                throw GraphFileError(corpus.problems.front());
            }
            for (const auto& file : corpus.files) {
                found.push_back({file.string(), load_graph_input({.input = file.string()}), file});
            }
            for (const auto& capture : corpus.captures) {
                std::ranges::move(capture_graphs(capture), std::back_inserter(found));
            }
        }
        for (CorpusGraph& graph : found) {
            apply_buffer_overrides(graph.file, overrides);
            graphs.push_back(std::move(graph));
        }
    }
    return graphs;
}

std::string policy_origin(const AllocatorProfile& profile) {
    if (is_builtin_profile(profile)) {
        return "a state of ggml's history: " + std::string(profile.upstream);
    }
    return std::string(profile.upstream);
}

// The table's text with no spaces at the ends of lines (the padding of empty last columns).
std::string without_trailing_spaces(const std::string& text) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        std::string line = text.substr(start, end - start);
        line.erase(line.find_last_not_of(' ') + 1);
        out += line + (end < text.size() ? "\n" : "");
        start = end + 1;
    }
    return out;
}

void print_rows(const PolicyComparison& c, std::size_t name_limit, std::ostream& out);

void print_table(const PolicyComparison& c, std::size_t name_limit, std::ostream& out) {
    std::ostringstream rows;
    print_rows(c, name_limit, rows);
    out << without_trailing_spaces(rows.str());
}

void print_rows(const PolicyComparison& c, std::size_t name_limit, std::ostream& out) {
    const std::size_t policies = c.policies.size();
    out << "policies (sizes are every buffer of a graph together; A is the reference):\n";
    for (std::size_t p = 0; p < policies; ++p) {
        const AllocatorProfile& profile = *c.policies[p];
        out << "  " << static_cast<char>('A' + p) << " = " << profile.name;
        out << (p > 0 ? ": " + rule_differences_text(*c.policies[0], profile) : ", " + policy_origin(profile));
        out << "\n";
    }
    std::size_t width = 5;
    for (const PolicyGraphResult& g : c.graphs) {
        width = std::max(width, std::min(display_width(g.label), name_limit));
    }
    constexpr int kColumn = 14;
    out << "\n" << padded("graph", width) << std::right << std::setw(8) << "nodes" << std::setw(kColumn) << "bound"
        << std::setw(kColumn) << "best offline";
    for (std::size_t p = 0; p < policies; ++p) {
        out << std::setw(kColumn) << std::string(1, static_cast<char>('A' + p)) << std::setw(7) << "/bound";
        if (p > 0) {
            out << std::setw(kColumn) << "vs A";
        }
    }
    out << "\n";
    for (const PolicyGraphResult& g : c.graphs) {
        out << padded(shortened(g.label, name_limit), width) << std::right << std::setw(8) << g.nodes << std::setw(kColumn)
            << binary_size(g.lower_bound) << std::setw(kColumn) << binary_size(g.best_offline);
        for (std::size_t p = 0; p < policies; ++p) {
            const PolicyPlan& plan = g.plans[p];
            if (plan.broken()) {
                out << std::setw(kColumn) << (plan.error.empty() ? "REJECTED" : "FAILED") << std::setw(7) << "-"
                    << (p > 0 ? std::string(kColumn, ' ') : "");
                continue;
            }
            out << std::setw(kColumn) << binary_size(plan.total) << std::setw(7) << ratio(plan.total, g.lower_bound);
            if (p > 0) {
                out << std::setw(kColumn)
                    << (g.plans[0].broken() ? "-" : signed_size(g.plans[0].total, plan.total));
            }
        }
        out << "\n";
    }
    out << padded("total", width) << std::right << std::setw(8) << "" << std::setw(kColumn) << binary_size(c.lower_bound)
        << std::setw(kColumn) << binary_size(c.best_offline);
    for (std::size_t p = 0; p < policies; ++p) {
        out << std::setw(kColumn) << binary_size(c.totals[p].total) << std::setw(7) << ratio(c.totals[p].total, c.lower_bound)
            << (p > 0 ? std::string(kColumn, ' ') : "");
    }
    out << "\n";
    // Safe policies first; an unsafe one's results are counted apart, under a line saying why
    // they are not savings a backend could have.
    const auto print_summary = [&](std::size_t p) {
        const PolicyTotals& t = c.totals[p];
        out << "\n" << static_cast<char>('A' + p) << " (" << c.policies[p]->name << ") against A: "
            << counted(t.graphs_smaller, "graph") << " smaller, " << counted(t.graphs_larger, "graph") << " larger, "
            << counted(t.graphs_broken, "graph") << " broken; of A's excess over the bound it recovers "
            << percent1(c.share_of_excess_recovered(p)) << ", of A's excess over the best offline plan "
            << percent1(c.share_of_excess_over_best_recovered(p)) << " (the optimum on "
            << c.graphs_with_proven_optimum() << " of " << counted(c.graphs.size(), "graph") << ")\n";
    };
    bool any_unsafe = c.policies[0]->unsafe;
    for (std::size_t p = 1; p < policies; ++p) {
        if (!c.policies[p]->unsafe) {
            print_summary(p);
        } else {
            any_unsafe = true;
        }
    }
    if (any_unsafe) {
        out << "\nUNSAFE policies: they run in place ops no ggml kernel can run over its source, so no backend could "
               "run their plans and what they save is not real:\n";
        for (std::size_t p = 0; p < policies; ++p) {
            if (c.policies[p]->unsafe) {
                out << "  " << static_cast<char>('A' + p) << " (" << c.policies[p]->name
                    << ") runs in place: " << unsafe_ops_text(*c.policies[p]) << "\n";
            }
        }
        for (std::size_t p = 1; p < policies; ++p) {
            if (c.policies[p]->unsafe) {
                print_summary(p);
            }
        }
    }
    for (const PolicyGraphResult& g : c.graphs) {
        for (std::size_t p = 0; p < policies; ++p) {
            const PolicyPlan& plan = g.plans[p];
            if (!plan.error.empty()) {
                out << static_cast<char>('A' + p) << " fails on " << g.label << ": " << plan.error << "\n";
            } else if (!plan.violations.empty()) {
                out << static_cast<char>('A' + p) << "'s plan of " << g.label << " breaks "
                    << counted(plan.violations.size(), "rule") << ", the first: " << plan.violations.front() << "\n";
            }
        }
    }
}

nlohmann::ordered_json comparison_json(const PolicyComparison& c) {
    nlohmann::ordered_json out;
    out["format"] = "gallocsim-policy-comparison/1";
    auto& policies = out["policies"] = nlohmann::ordered_json::array();
    for (std::size_t p = 0; p < c.policies.size(); ++p) {
        const AllocatorProfile& profile = *c.policies[p];
        nlohmann::ordered_json entry{{"name", profile.name},
                                     {"builtin", is_builtin_profile(profile)},
                                     {"unsafe", profile.unsafe},
                                     {"description", profile.upstream},
                                     {"reference", p == 0}};
        auto& changes = entry["changes"] = nlohmann::ordered_json::array();
        for (const RuleDifference& d : rule_differences(*c.policies[0], profile)) {
            changes.push_back({{"rule", d.rule}, {"before", d.before}, {"after", d.after}});
        }
        const PolicyTotals& t = c.totals[p];
        entry["total"] = t.total;
        entry["graphs_smaller"] = t.graphs_smaller;
        entry["graphs_larger"] = t.graphs_larger;
        entry["graphs_broken"] = t.graphs_broken;
        entry["share_of_excess_recovered"] = c.share_of_excess_recovered(p);
        entry["share_of_excess_over_best_recovered"] = c.share_of_excess_over_best_recovered(p);
        policies.push_back(entry);
    }
    auto& graphs = out["graphs"] = nlohmann::ordered_json::array();
    for (const PolicyGraphResult& g : c.graphs) {
        nlohmann::ordered_json entry{{"graph", g.label},
                                     {"file", g.path.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(g.path)},
                                     {"nodes", g.nodes},
                                     {"lower_bound", g.lower_bound},
                                     {"best_offline", g.best_offline},
                                     {"best_offline_planner", g.best_offline_planner},
                                     {"best_offline_optimal", g.best_offline_optimal}};
        auto& plans = entry["plans"] = nlohmann::ordered_json::array();
        for (const PolicyPlan& plan : g.plans) {
            nlohmann::ordered_json p{{"total", plan.broken() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(plan.total)},
                                     {"buffer_sizes", plan.buffer_sizes},
                                     {"chunk_sizes", plan.chunk_sizes},
                                     {"error", plan.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(plan.error)},
                                     {"violations", plan.violations}};
            plans.push_back(p);
        }
        graphs.push_back(entry);
    }
    out["lower_bound"] = c.lower_bound;
    out["best_offline"] = c.best_offline;
    out["graphs_with_proven_optimum"] = c.graphs_with_proven_optimum();
    return out;
}

} // namespace

int policy_compare(const PolicyCompareOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&]() -> int {
        std::vector<Rules> rules{chosen_rules(options.against, "--against")};
        for (const std::string& policy : options.policies) {
            rules.push_back(chosen_rules(policy, "--policy"));
        }
        std::vector<const AllocatorProfile*> policies;
        for (const Rules& named : rules) {
            policies.push_back(&named.profile());
        }
        if (options.inputs.empty()) {
            throw UsageError("policy compare: give graph files, folders or capture folders to compare the policies on");
        }
        const std::vector<CorpusGraph> graphs = load_policy_corpus(options);
        ExactLimits limits;
        limits.time_limit = std::chrono::milliseconds(static_cast<long long>(std::max(options.time_limit, 0.0) * 1000));
        const PolicyComparison comparison = compare_policies(graphs, policies, limits);
        if (options.svg) {
            if (const int code = write_text(render_policy_chart_svg(comparison), *options.svg, out, err); code != kDone) {
                return code;
            }
        }
        if (options.json) {
            out << json_report(comparison_json(comparison)) << "\n";
        } else if (!options.svg || *options.svg != "-") {
            print_table(comparison, name_columns(options.full_names), out);
        }
        const bool any_broken = std::ranges::any_of(comparison.totals, [](const PolicyTotals& t) { return t.graphs_broken > 0; });
        return any_broken ? kFailed : kDone;
    });
}

int policy_export(const PolicyExportOptions& options, std::ostream& out, std::ostream& err) {
    return run_guarded(err, [&]() -> int {
        const Rules rules = chosen_rules(options.state, "policy export");
        const AllocatorProfile& profile = rules.profile();
        const std::string name = options.name.value_or(std::string(profile.name));
        const std::string description = is_builtin_profile(profile)
                                            ? "every rule of " + std::string(profile.name) + ": " + std::string(profile.upstream)
                                            : std::string(profile.upstream);
        return write_text(policy_file_text(profile, name, description), options.output.value_or(""), out, err);
    });
}

int policy_check(const std::vector<std::string>& files, std::ostream& out, std::ostream& err) {
    int code = kDone;
    for (const std::string& file : files) {
        const int one = run_guarded(err, [&]() -> int {
            const std::unique_ptr<const Policy> policy = load_policy_file(file);
            out << file << ": policy " << policy->profile().name << ", from " << policy->base().name << ": "
                << rule_differences_text(policy->base(), policy->profile());
            if (policy->profile().unsafe) {
                out << "; UNSAFE: no ggml kernel can run " << unsafe_ops_text(policy->profile())
                    << " over its source, so no backend could run its plans";
            }
            if (&policy->base() != &newest_profile()) {
                out << " (against the newest state, " << newest_profile().name << ": "
                    << rule_differences_text(newest_profile(), policy->profile()) << ")";
            }
            out << "\n";
            return kDone;
        });
        code = std::max(code, one);
    }
    return code;
}

int policy_rules_list(std::ostream& out) {
    out << "The rules a policy file sets under \"rules\" (docs/policies.md); a rule it does not name keeps its base's value.\n\n";
    for (const PolicyRule& rule : policy_rules()) {
        out << rule.name << ": " << rule.values << "\n    " << rule.meaning << "\n";
    }
    return kDone;
}

// The subcommands on the command line (cli/command_list.hpp).
Subcommand add_policy_command(CLI::App& app, const Console& io) {
    auto* command = app.add_subcommand("policy", "allocator policies as files: list their rules, export a state as one, "
                                                 "check one, compare policies over graphs and captures");
    command->require_subcommand(1);

    auto* rules = command->add_subcommand("rules", "the rules a policy file may set, with their values");

    auto exported = std::make_shared<PolicyExportOptions>();
    auto* export_command = command->add_subcommand("export", "write a state (or a policy file) as a policy file with every rule in it");
    export_command->add_option("state", exported->state, "a state name, a ggml version, or a policy file")->required();
    export_command->add_option("--name", exported->name, "the policy's name (default: the state's)");
    export_command->add_option("-o,--output", exported->output, "write here instead of standard output");

    auto checked = std::make_shared<std::vector<std::string>>();
    auto* check = command->add_subcommand("check", "read policy files and say what each changes from its base");
    check->add_option("files", *checked, "policy files")->required();

    auto compared = std::make_shared<PolicyCompareOptions>();
    auto* compare = command->add_subcommand(
        "compare", "plan graphs by several policies: each one's buffer sizes next to the in-place-aware bound and the "
                   "best offline planner, what it saves against the reference, and where it breaks a graph");
    compare->add_option("inputs", compared->inputs, "graph files, folders of them, capture folders, or example names")
        ->required();
    compare->add_option("--policy", compared->policies, "a state name or a policy file (repeat for several)")->required();
    compare->add_option("--against", compared->against,
                        "the reference the others are measured against (default: the newest state, " +
                            std::string(newest_profile().name) + ")");
    compare->add_option("--time-limit", compared->time_limit, "seconds for each exact search (small graphs; default 0.2)")
        ->check(CLI::Range(0.0, 86400.0));
    compare->add_flag("--json", compared->json, "one JSON object (docs/json-reports.md)");
    add_full_names_flag(compare, compared->full_names);
    compare->add_option("--svg", compared->svg, "write a chart of every graph's sizes over its bound (- for standard output)");
    add_buffer_flags(compare, compared->buffers, "Buffer options");

    return {command, [=, &io]() -> int {
                if (rules->parsed()) {
                    return policy_rules_list(io.out);
                }
                if (export_command->parsed()) {
                    return policy_export(*exported, io.out, io.err);
                }
                if (check->parsed()) {
                    return policy_check(*checked, io.out, io.err);
                }
                return policy_compare(*compared, io.out, io.err);
            }};
}

} // namespace gallocsim::cli
