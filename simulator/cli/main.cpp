// gallocsim: plan, check, step through, compare and capture ggml graph memory plans.
#include "simulator/cli/command_line.hpp"

#include <iostream>

#include <unistd.h>

int main(int argc, char** argv) {
    return gallocsim::cli::run_command_line(argc, argv, {std::cin, std::cout, std::cerr, isatty(STDIN_FILENO) != 0,
                                                                  isatty(STDERR_FILENO) != 0});
}
