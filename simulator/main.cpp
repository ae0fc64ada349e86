// gallocsim: plan, check and (later) step through ggml graph memory plans.
#include "simulator/commands.hpp"

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

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
