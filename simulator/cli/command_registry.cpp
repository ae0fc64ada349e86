#include "simulator/cli/command_registry.hpp"

#include <algorithm>

namespace gallocsim::cli {
namespace {

// Built on first use: registrars in other files run during static initialization, in an
// order C++ leaves open, possibly before a namespace-scope vector here would exist.
std::vector<CommandRegistration>& registry() {
    static std::vector<CommandRegistration> commands;
    return commands;
}

} // namespace

CommandRegistrar::CommandRegistrar(CommandRegistration registration) { registry().push_back(registration); }

std::vector<CommandRegistration> registered_commands() {
    std::vector<CommandRegistration> commands = registry();
    // Registration follows the order the linker put the files in; the keys alone decide the
    // list, since no two are equal (cli_tests checks that).
    std::ranges::sort(commands, {}, &CommandRegistration::order);
    return commands;
}

} // namespace gallocsim::cli
