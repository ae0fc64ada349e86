#pragma once
// Allocator policies as files a user writes (docs/policies.md): a named profile as the base,
// any of its rules changed, and the rules no upstream state has but ggml could adopt without
// changing its API (first fit, largest fit, ties). A policy is a profile of the one allocator,
// never a second allocator: everything that plans by a profile plans by a policy.
//
//   {"format": "gallocsim-policy/1", "name": "first-fit", "base": "llama.cpp-0c1e570",
//    "description": "...", "rules": {"block_fit": "first"}}
//
// The in-place ops a policy may add are those a ggml kernel can run over its source
// (kernel_inplace_ops, reference/profile.hpp); any other is refused with the reason unless
// the file says "unsafe": true, and then the policy's name carries "(unsafe)" in every report.
//
// Reading validates like graph files: every error names the file, the JSON path and the
// problem (GraphFileError).

#include "reference/profile.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gallocsim {

inline constexpr std::string_view kPolicyFormat = "gallocsim-policy/1";

// A policy read from a file. Its profile's names point into it, so it stays where it was
// made (held by a unique_ptr) for as long as anything plans by it.
class Policy {
public:
    Policy(std::string name, std::string description, std::string file, const AllocatorProfile& base,
           const AllocatorProfile& rules);
    Policy(const Policy&) = delete;
    Policy& operator=(const Policy&) = delete;

    const AllocatorProfile& profile() const { return profile_; }
    const AllocatorProfile& base() const { return *base_; }
    const std::string& name() const { return name_; }
    const std::string& description() const { return description_; }
    const std::string& file() const { return file_; }

private:
    std::string name_;
    std::string shown_name_;  // the profile's name: name_, marked "(unsafe)" for an unsafe policy
    std::string description_;
    std::string file_;
    const AllocatorProfile* base_;
    AllocatorProfile profile_;
};

// The ops a profile runs in place that no ggml kernel can run over its source ("MUL_MAT, CPY"),
// what an unsafe policy's reports name; empty for every upstream state and safe policy.
std::string unsafe_ops_text(const AllocatorProfile& profile);

// Throws GraphFileError: "FILE: $.rules.block_fit: must be one of best, first, largest, got \"worst\"".
// A policy inside a larger document (a GUI session's "$.policy") gives that path as
// `json_root`: "sess.json: $.policy.rules.block_fit: ..."; its file() is then `source`.
std::unique_ptr<const Policy> parse_policy(std::string_view text, std::string_view source, std::string_view json_root = "$");
std::unique_ptr<const Policy> load_policy_file(const std::filesystem::path& path);

// Whether a --ggml-version/--policy argument names a policy file rather than a state: it
// names an existing file, or looks like a path (a '/' or a ".json" ending).
bool looks_like_policy_file(std::string_view argument);

// The policy file of a profile with every rule written out: a built-in state exported (its
// base is itself, so the file plans exactly as the state does), or a policy rewritten in full.
std::string policy_file_text(const AllocatorProfile& profile, std::string_view name, std::string_view description);

// One rule on which two profiles differ, in the words policy files use:
// {"block_fit", "best", "first"}, {"inplace_ops", "", "+CPY -SOFT_MAX"}.
struct RuleDifference {
    std::string rule;
    std::string before;
    std::string after;
};
std::vector<RuleDifference> rule_differences(const AllocatorProfile& before, const AllocatorProfile& after);
// "block_fit best -> first; inplace_ops +CPY -SOFT_MAX" ("no rule differs" when equal).
std::string rule_differences_text(const AllocatorProfile& before, const AllocatorProfile& after);

// The rules a policy file may set, with their values, for help texts and the docs test.
struct PolicyRule {
    std::string_view name;
    std::string_view values;  // "best, first, largest"; "true, false"; "a list of op names, or {add, remove}"
    std::string_view meaning;
    // Its row in `gallocsim versions`' table of rules by state ("tail choice"): set for a rule
    // some upstream state changes, empty for a policy's alone.
    std::string_view state_label = {};
};
std::span<const PolicyRule> policy_rules();

// The rows of `gallocsim versions`' table of rules by state, read off the same table as the
// policy rules and in its order: the rule, the row's label, and the rule's value in a profile
// in one word ("yes", "reuse", "22" in-place ops; "-" where the rule does not act, a tail
// choice without chunks).
struct StateRuleRow {
    std::string_view rule;   // the policy file's name: "tail_choice"
    std::string_view label;  // "tail choice"
    std::function<std::string(const AllocatorProfile&)> word;
};
std::span<const StateRuleRow> state_rule_rows();

} // namespace gallocsim
