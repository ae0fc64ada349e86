// gallocsim: plan, check and (later) step through ggml graph memory plans.
#include "simulator/commands.hpp"

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include <unistd.h>

int main(int argc, char** argv) {
    CLI::App app{"gallocsim: ggml's graph allocator, step by step"};
    app.require_subcommand(1);

    gallocsim::cli::PlanOptions plan;
    auto* plan_cmd = app.add_subcommand("plan", "plan a graph file (or a built-in example) and print where every tensor goes");
    plan_cmd->add_option("input", plan.input, "graph file, or example name (see `gallocsim examples`)")->required();
    plan_cmd->add_flag("--json", plan.json, "write the plan in the graph format's `expected` shape");

    gallocsim::cli::ConformOptions conform;
    auto* conform_cmd = app.add_subcommand("conform", "check that plans equal each file's `expected` plan (from upstream ggml)");
    conform_cmd->add_option("paths", conform.paths, "graph files or folders")->required();
    conform_cmd->add_flag("-v,--verbose", conform.verbose, "list passing files too");

    std::string example_name, example_output;
    auto* examples_cmd = app.add_subcommand("examples", "list the built-in examples, or export one as a graph file");
    examples_cmd->add_option("name", example_name, "example to export");
    examples_cmd->add_option("-o,--output", example_output, "file to write (default: standard output)");

    gallocsim::cli::TraceOptions trace;
    auto* trace_cmd = app.add_subcommand("trace", "record a plan step by step and explain every event");
    trace_cmd->add_option("input", trace.input, "graph file, or example name")->required();
    trace_cmd->add_flag("--json", trace.json, "one JSON object per event, for tools");
    trace_cmd->add_option("--from", trace.from, "first step to show (from 1)");
    trace_cmd->add_option("--to", trace.to, "last step to show");

    gallocsim::cli::WalkOptions walk;
    auto* walk_cmd = app.add_subcommand("walk", "step through a plan interactively (commands on standard input; h for help)");
    walk_cmd->add_option("input", walk.input, "graph file, or example name")->required();
    walk_cmd->add_option("--checkpoint-every", walk.checkpoint_interval, "events between state checkpoints")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));

    gallocsim::cli::StatsOptions stats;
    auto* stats_cmd = app.add_subcommand("stats", "memory statistics per step and for the whole plan");
    stats_cmd->add_option("input", stats.input, "graph file, or example name")->required();
    stats_cmd->add_flag("--summary", stats.summary_only, "only the whole-plan figures");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        return app.exit(error);
    }

    try {
        if (*plan_cmd) {
            return gallocsim::cli::plan(plan, std::cout, std::cerr);
        }
        if (*conform_cmd) {
            return gallocsim::cli::conform(conform, std::cout, std::cerr);
        }
        if (*trace_cmd) {
            return gallocsim::cli::trace(trace, std::cout, std::cerr);
        }
        if (*walk_cmd) {
            walk.prompt = isatty(STDIN_FILENO) != 0;
            return gallocsim::cli::walk(walk, std::cin, std::cout, std::cerr);
        }
        if (*stats_cmd) {
            return gallocsim::cli::stats(stats, std::cout, std::cerr);
        }
        if (*examples_cmd) {
            return example_name.empty() ? gallocsim::cli::list_examples(std::cout)
                                        : gallocsim::cli::export_example(example_name, example_output, std::cout, std::cerr);
        }
    } catch (const std::exception& error) {
        std::cerr << "gallocsim: " << error.what() << "\n";
        return 3;
    }
    return 0;
}
