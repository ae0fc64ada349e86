#pragma once
// The rules a plan is made by, as a person names them: an allocator state, a version the map
// reads ("0.13.1", "b6568", a commit: reference/version_map.hpp), or a policy file
// (docs/policies.md). One resolver and one error sentence for the command line's
// --ggml-version/--policy and the GUI's.

#include "reference/profile.hpp"
#include "simulator/model/policy_file.hpp"

#include <memory>
#include <stdexcept>
#include <string_view>

namespace gallocsim {

// A built-in state, or a policy together with the file it came from. A policy's profile points
// into the policy, so Rules holds it: the profile lives as long as any copy of the Rules.
class Rules {
public:
    explicit Rules(const AllocatorProfile& state) : profile_(&state) {}
    explicit Rules(std::shared_ptr<const Policy> policy) : profile_(&policy->profile()), policy_(std::move(policy)) {}

    const AllocatorProfile& profile() const { return *profile_; }
    // The policy file's, or nullptr for a built-in state.
    const std::shared_ptr<const Policy>& policy() const { return policy_; }

private:
    const AllocatorProfile* profile_;
    std::shared_ptr<const Policy> policy_;
};

// What no state, version or policy file answers to. Its text is the front ends' to prefix with
// what named it: "0.9.4 could be any of ggml-254ea3e5 … ggml-0a2b6b20; name one; or a policy
// file (docs/policies.md)".
class UnknownRules : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The rules `name` names; the newest state when it is empty. Throws UnknownRules, or
// GraphFileError for a policy file that cannot be read.
Rules resolve_rules(std::string_view name);

} // namespace gallocsim
