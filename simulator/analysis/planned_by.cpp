#include "simulator/analysis/planned_by.hpp"

#include "simulator/model/amount_text.hpp"

namespace gallocsim {

namespace {

// "CPU: alignment 32, no max size"; the alloc size rule only where it is not ggml_nbytes.
std::string settings_text(const BufferTypeSpec& type) {
    std::string text = type.name + ": alignment " + std::to_string(type.alignment) + ", " +
                       (type.max_size ? "max size " + binary_size(*type.max_size) : std::string("no max size"));
    if (type.alloc_size != AllocSizeRule::nbytes) {
        text += ", alloc size " + std::string(alloc_size_rule_name(type.alloc_size));
    }
    return text;
}

} // namespace

std::string planned_by_text(const AllocatorProfile& profile, std::span<const BufferTypeSpec> types) {
    std::string text = "planned by " + std::string(is_builtin_profile(profile) ? "" : "policy ") + std::string(profile.name);
    if (&profile == &newest_profile()) {
        text += " (the newest state)";
    }
    text += types.size() == 1 ? "; buffer type " : "; buffer types ";
    for (std::size_t i = 0; i < types.size(); ++i) {
        text += (i == 0 ? "" : "; ") + settings_text(types[i]);
    }
    return text;
}

} // namespace gallocsim
