#include "simulator/model/rules.hpp"

#include "reference/version_map.hpp"

#include <string>

namespace gallocsim {

Rules resolve_rules(std::string_view name) {
    if (name.empty()) {
        return Rules(newest_profile());
    }
    const ResolvedVersion resolved = resolve_version(name);
    if (resolved.profile != nullptr) {
        return Rules(*resolved.profile);
    }
    // What the version map cannot read may still be a policy file.
    if (looks_like_policy_file(name)) {
        return Rules(std::shared_ptr<const Policy>(load_policy_file(std::string(name))));
    }
    throw UnknownRules(resolved.problem + "; or a policy file (docs/policies.md)");
}

} // namespace gallocsim
