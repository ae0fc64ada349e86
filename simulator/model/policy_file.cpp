#include "simulator/model/policy_file.hpp"

#include "simulator/model/input_file.hpp"
#include "simulator/model/json_reader.hpp"
#include "simulator/model/visible_text.hpp"

#include "reference/version_map.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <system_error>

namespace gallocsim {
namespace {

using json = nlohmann::json;  // what a policy file writes
using json_input::Path;
using json_input::Reader;
using json_input::Value;

// A value of an enum rule: its name in policy files, and the word `versions`' table of rules
// by state shows it by (a column is 9 wide).
template <class Enum>
struct Named {
    Enum value;
    std::string_view name;
    std::string_view word;
};

constexpr Named<BlockFit> kBlockFits[] = {
    {BlockFit::best, "best", "best"}, {BlockFit::first, "first", "first"}, {BlockFit::largest, "largest", "largest"}};
constexpr Named<FitTies> kFitTies[] = {{FitTies::last, "last", "last"}, {FitTies::first, "first", "first"}};
constexpr Named<TailChoice> kTailChoices[] = {
    {TailChoice::reuse_factor, "reuse_factor", "reuse"}, {TailChoice::first_that_fits, "first_that_fits", "first"}};
constexpr Named<Reallocation> kReallocations[] = {
    {Reallocation::when_a_chunk_grows, "when_a_chunk_grows", "chunk"},
    {Reallocation::when_total_grows, "when_total_grows", "total"}};
constexpr Named<ExtraSpace> kExtraSpaces[] = {
    {ExtraSpace::freed_aligned, "freed_aligned", "aligned"}, {ExtraSpace::freed, "freed", "freed"}, {ExtraSpace::kept, "kept", "kept"}};

template <class Enum, std::size_t N>
const Named<Enum>& named(const Named<Enum> (&names)[N], Enum value) {
    return *std::ranges::find(names, value, &Named<Enum>::value);
}

template <class Enum, std::size_t N>
std::string names_text(const Named<Enum> (&names)[N]) {
    std::string text;
    for (const auto& n : names) {
        text += (text.empty() ? "" : ", ") + std::string(n.name);
    }
    return text;
}

template <class Enum, std::size_t N>
Enum read_enum(const Reader& reader, Value value, const Path& path, const Named<Enum> (&names)[N]) {
    const std::string text = reader.string(value, path);
    const auto it = std::ranges::find(names, text, &Named<Enum>::name);
    if (it == std::end(names)) {
        reader.fail(path, "must be one of " + names_text(names) + ", got \"" + visible_text(text) + "\"");
    }
    return it->value;
}

// The in-place ops as a file writes them: every op of the set, in ggml's op order.
json op_list(OpSet ops) {
    json list = json::array();
    for (std::size_t i = 0; i < kOpCount; ++i) {
        const auto op = static_cast<Op>(i);
        if (ops.contains(op)) {
            list.push_back(op_name(op));
        }
    }
    return list;
}

Op read_op(const Reader& reader, Value value, const Path& path) {
    const std::string text = reader.string(value, path);
    const std::optional<Op> op = parse_op(text);
    if (!op) {
        reader.fail(path, "\"" + visible_text(text) + "\" is not a ggml op name (ADD, MUL_MAT, SOFT_MAX, ...)");
    }
    return *op;
}

// How a policy file's rules are read: whether it said "unsafe": true.
struct ReadingRules {
    bool unsafe_allowed = false;
};

// A list of op names, each at most once. An op no ggml kernel can run over its source is
// refused where it is named, unless the policy said it is unsafe.
std::vector<Op> read_op_list(const Reader& reader, Value value, const Path& path, const ReadingRules& how,
                             bool judged_in_place) {
    std::vector<Op> ops;
    for (std::size_t i = 0; const Value name : reader.array(value, path)) {
        const Path op_path = at(path, i++);
        const Op op = read_op(reader, name, op_path);
        if (std::ranges::find(ops, op) != ops.end()) {
            reader.fail(op_path, std::string(op_name(op)) + " is given twice");
        }
        if (judged_in_place && !how.unsafe_allowed && !kernel_inplace_ops().contains(op)) {
            reader.fail(op_path, std::string(op_name(op)) + " cannot run in place: " + why_not_in_place(op) +
                                     ". A policy that runs it in place anyway says \"unsafe\": true, and every report marks it");
        }
        ops.push_back(op);
    }
    return ops;
}

OpSet with_all(OpSet set, const std::vector<Op>& ops) {
    for (const Op op : ops) {
        set = set.with(op);
    }
    return set;
}

// inplace_ops: the whole set (a list), or the base's set with ops added and removed. An op
// both added and removed contradicts itself: refused at its place in "remove".
OpSet read_inplace_ops(const Reader& reader, Value value, const Path& path, OpSet base, const ReadingRules& how) {
    if (value.is_array()) {
        return with_all(OpSet{}, read_op_list(reader, value, path, how, true));
    }
    if (!value.is_object()) {
        reader.fail(path, "must be a list of op names or an object with \"add\" and \"remove\" lists, got " +
                              Reader::describe(value));
    }
    const json_input::Object changes = reader.object(value, path);
    reader.only_keys(changes, path, {"add", "remove"});
    std::vector<Op> added;
    if (const auto add = Reader::find(changes, "add")) {
        added = read_op_list(reader, *add, dot(path, "add"), how, true);
    }
    std::vector<Op> removed;
    if (const auto remove = Reader::find(changes, "remove")) {
        const Path remove_path = dot(path, "remove");
        removed = read_op_list(reader, *remove, remove_path, how, false);
        for (std::size_t i = 0; i < removed.size(); ++i) {
            if (std::ranges::find(added, removed[i]) != added.end()) {
                reader.fail(at(remove_path, i), std::string(op_name(removed[i])) + " is both added and removed; name it in one list");
            }
        }
    }
    OpSet ops = with_all(base, added);
    OpSet kept;
    for (std::size_t i = 0; i < kOpCount; ++i) {
        const auto op = static_cast<Op>(i);
        if (ops.contains(op) && std::ranges::find(removed, op) == removed.end()) {
            kept = kept.with(op);
        }
    }
    return kept;
}

// The ops of a set no ggml kernel can run over its source.
std::vector<Op> unsafe_ops(OpSet ops) {
    std::vector<Op> found;
    for (std::size_t i = 0; i < kOpCount; ++i) {
        const auto op = static_cast<Op>(i);
        if (ops.contains(op) && !kernel_inplace_ops().contains(op)) {
            found.push_back(op);
        }
    }
    return found;
}

// One rule of a profile: how a policy file reads it, writes it, and what it means; and, for a
// rule upstream states differ in (rule.state_label set), its value in a word for `versions`.
struct RuleIo {
    PolicyRule rule;
    std::function<void(const Reader&, Value, const Path&, AllocatorProfile&, const ReadingRules&)> read;
    std::function<json(const AllocatorProfile&)> write;
    std::function<std::string(const AllocatorProfile&)> word;
};

// `only_with`: the rule acts only while that rule is on; its word is "-" while it is off.
template <class Enum, std::size_t N>
RuleIo enum_rule(PolicyRule rule, Enum AllocatorProfile::*field, const Named<Enum> (&names)[N],
                 bool AllocatorProfile::*only_with = nullptr) {
    return {rule,
            [field, &names](const Reader& r, Value v, const Path& p, AllocatorProfile& profile, const ReadingRules&) {
                profile.*field = read_enum(r, v, p, names);
            },
            [field, &names](const AllocatorProfile& profile) { return json(named(names, profile.*field).name); },
            [field, &names, only_with](const AllocatorProfile& profile) {
                return only_with != nullptr && !(profile.*only_with) ? std::string("-")
                                                                     : std::string(named(names, profile.*field).word);
            }};
}

RuleIo bool_rule(PolicyRule rule, bool AllocatorProfile::*field) {
    return {rule,
            [field](const Reader& r, Value v, const Path& p, AllocatorProfile& profile, const ReadingRules&) {
                profile.*field = r.boolean(v, p);
            },
            [field](const AllocatorProfile& profile) { return json(profile.*field); },
            [field](const AllocatorProfile& profile) { return std::string(profile.*field ? "yes" : "no"); }};
}

const std::vector<RuleIo>& rule_ios() {
    static const std::vector<RuleIo> rules = [] {
        std::vector<RuleIo> list;
        list.push_back({{"inplace_ops", "a list of op names (the whole set), or {\"add\": [...], \"remove\": [...]}",
                         "ops whose result may take over a parent's memory (ggml_op_can_inplace)", "in-place ops (count)"},
                        [](const Reader& r, Value v, const Path& p, AllocatorProfile& profile, const ReadingRules& how) {
                            profile.inplace_ops = read_inplace_ops(r, v, p, profile.inplace_ops, how);
                        },
                        [](const AllocatorProfile& profile) { return op_list(profile.inplace_ops); },
                        [](const AllocatorProfile& profile) {
                            std::size_t count = 0;
                            for (std::size_t i = 0; i < kOpCount; ++i) {
                                count += profile.inplace_ops.contains(static_cast<Op>(i)) ? 1 : 0;
                            }
                            return std::to_string(count);
                        }});
        list.push_back(enum_rule({"block_fit", "best, first, largest",
                                  "which free block before a chunk's tail a request takes: the smallest that fits "
                                  "(ggml), the first that fits, or the largest that fits"},
                                 &AllocatorProfile::block_fit, kBlockFits));
        list.push_back(enum_rule({"fit_ties", "last, first",
                                  "of equally good free blocks in a chunk, the later (ggml's `<=` scan) or the earlier"},
                                 &AllocatorProfile::fit_ties, kFitTies));
        list.push_back(bool_rule({"inplace_through_views", "true, false",
                                  "an in-place node may take over the source of a view parent (a view showing its "
                                  "whole source, its only view): upstream's unreachable view branch, made reachable"},
                                 &AllocatorProfile::inplace_through_views));
        list.push_back(bool_rule({"chunks", "true, false",
                                  "a buffer type's plan is split into chunks of at most its max size (false: one "
                                  "buffer, the max size ignored while planning)",
                                  "chunks"},
                                 &AllocatorProfile::chunks));
        list.push_back(enum_rule({"tail_choice", "reuse_factor, first_that_fits",
                                  "which chunk's tail takes a request no free block fits", "tail choice"},
                                 &AllocatorProfile::tail_choice, kTailChoices, &AllocatorProfile::chunks));
        list.push_back(enum_rule({"reallocation", "when_a_chunk_grows, when_total_grows",
                                  "when reserve replaces a buffer type's chunks", "reallocation"},
                                 &AllocatorProfile::reallocation, kReallocations));
        list.push_back(enum_rule({"free_extra_space", "freed_aligned, freed, kept",
                                  "the bytes of a larger parent past the end of a node that takes it over in place",
                                  "free_extra_space"},
                                 &AllocatorProfile::free_extra_space, kExtraSpaces));
        list.push_back(bool_rule({"external_buffer_is_allocated", "true, false",
                                  "a tensor on an external buffer but without data counts as allocated",
                                  "external buffer = allocated"},
                                 &AllocatorProfile::external_buffer_is_allocated));
        list.push_back(bool_rule({"has_reserve_n_size", "true, false", "ggml_gallocr_reserve_n_size exists", "reserve_n_size"},
                                 &AllocatorProfile::has_reserve_n_size));
        list.push_back(bool_rule({"replans_when_data_dropped", "true, false",
                                  "alloc_graph plans again when a tensor's external data was dropped",
                                  "replans on dropped data"},
                                 &AllocatorProfile::replans_when_data_dropped));
        list.push_back(bool_rule({"empty_buffers_are_dummies", "true, false",
                                  "a request for 0 bytes gets a dummy buffer with no memory", "0-byte buffers are dummies"},
                                 &AllocatorProfile::empty_buffers_are_dummies));
        return list;
    }();
    return rules;
}

std::string ops_difference(OpSet before, OpSet after) {
    std::string text;
    for (std::size_t i = 0; i < kOpCount; ++i) {
        const auto op = static_cast<Op>(i);
        if (before.contains(op) != after.contains(op)) {
            text += (text.empty() ? "" : " ") + std::string(after.contains(op) ? "+" : "-") + std::string(op_name(op));
        }
    }
    return text;
}

std::string value_text(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

} // namespace

Policy::Policy(std::string name, std::string description, std::string file, const AllocatorProfile& base,
               const AllocatorProfile& rules)
    : name_(std::move(name)), shown_name_(rules.unsafe ? name_ + " (unsafe)" : name_), description_(std::move(description)),
      file_(std::move(file)), base_(&base), profile_(rules) {
    // Reports name a policy by its profile's name: an unsafe one carries the mark wherever it goes.
    profile_.name = shown_name_;
    profile_.commit = {};
    profile_.date = {};
    profile_.upstream = description_;
    profile_.aliases = {};
    profile_.sources = {};
}

std::string unsafe_ops_text(const AllocatorProfile& profile) {
    std::string text;
    for (const Op op : unsafe_ops(profile.inplace_ops)) {
        text += (text.empty() ? "" : ", ") + std::string(op_name(op));
    }
    return text;
}

std::unique_ptr<const Policy> parse_policy(std::string_view text, std::string_view source, std::string_view json_root) {
    const json_input::Origin origin(source, json_root);
    json_input::DocumentParser parser;
    const Reader reader(origin);
    const Path root("$");
    const json_input::Object doc = reader.object(parser.parse(text, origin), root);
    reader.only_keys(doc, root, {"format", "name", "description", "base", "unsafe", "rules"});
    const Path format_path("$.format");
    if (const std::string format = reader.string(reader.member(doc, root, "format"), format_path); format != kPolicyFormat) {
        reader.fail(format_path, "must be \"" + std::string(kPolicyFormat) + "\", got \"" + visible_text(format) + "\"");
    }
    const Path name_path("$.name");
    const std::string name = reader.string(reader.member(doc, root, "name"), name_path);
    if (name.empty() || !is_visible_text(name)) {
        reader.fail(name_path, "must be a non-empty name of printable characters");
    }
    std::string description;
    if (const auto it = Reader::find(doc, "description")) {
        description = reader.string(*it, Path("$.description"));
    }
    const Path base_path("$.base");
    const std::string base_name = reader.string(reader.member(doc, root, "base"), base_path);
    // The base is named as --ggml-version names a state: one resolver reads both.
    const ResolvedVersion resolved = resolve_version(base_name);
    const AllocatorProfile* base = resolved.profile;
    if (base == nullptr) {
        reader.fail(base_path, "\"" + visible_text(base_name) + "\": " + resolved.problem);
    }
    ReadingRules how;
    const Path unsafe_path("$.unsafe");
    if (const auto it = Reader::find(doc, "unsafe")) {
        how.unsafe_allowed = reader.boolean(*it, unsafe_path);
    }
    AllocatorProfile rules = *base;
    if (const auto it = Reader::find(doc, "rules")) {
        const Path rules_path("$.rules");
        const json_input::Object listed = reader.object(*it, rules_path);
        std::vector<std::string_view> seen;
        for (const auto [key, value] : listed) {
            if (std::ranges::find(seen, key) != seen.end()) {
                reader.fail(rules_path, "rule \"" + visible_text(key) + "\" given twice");
            }
            seen.push_back(key);
            const auto io = std::ranges::find(rule_ios(), key, [](const RuleIo& r) { return r.rule.name; });
            if (io == rule_ios().end()) {
                std::string known;
                for (const RuleIo& r : rule_ios()) {
                    known += (known.empty() ? "" : ", ") + std::string(r.rule.name);
                }
                reader.fail(rules_path, "unknown rule \"" + visible_text(key) + "\" (the rules: " + known + ")");
            }
            const Path rule_path = dot(rules_path, key);
            io->read(reader, value, rule_path, rules, how);
        }
    }
    // "unsafe": true on a policy whose every in-place op a kernel can run would mark safe
    // results as fiction: the claim and the rules contradict each other.
    rules.unsafe = !unsafe_ops(rules.inplace_ops).empty();
    if (how.unsafe_allowed && !rules.unsafe) {
        reader.fail(unsafe_path, "is true, but every op the policy runs in place has a ggml kernel that can run "
                                 "over its source; drop \"unsafe\"");
    }
    return std::make_unique<const Policy>(name, description.empty() ? std::string(base->name) + " with the rules the file changes" : description,
                                          std::string(source), *base, rules);
}

std::unique_ptr<const Policy> load_policy_file(const std::filesystem::path& path) {
    return parse_policy(read_input_file(path), path.string());
}

bool looks_like_policy_file(std::string_view argument) {
    std::error_code ec;
    return argument.find('/') != std::string_view::npos || argument.ends_with(".json") ||
           std::filesystem::is_regular_file(std::filesystem::path(argument), ec);
}

std::string policy_file_text(const AllocatorProfile& profile, std::string_view name, std::string_view description) {
    nlohmann::ordered_json out;
    out["format"] = kPolicyFormat;
    // An unsafe policy's profile is named "NAME (unsafe)"; the file keeps the mark in "unsafe", so
    // writing it by that name (the GUI's session, export's default) must not mark it twice.
    constexpr std::string_view kMark = " (unsafe)";
    out["name"] = profile.unsafe && name.ends_with(kMark) ? name.substr(0, name.size() - kMark.size()) : name;
    out["description"] = description;
    // A built-in state is its own base; a policy is written in full over the newest state, so
    // the file holds every rule and needs nothing it does not say.
    out["base"] = is_builtin_profile(profile) ? profile.name : newest_profile().name;
    if (profile.unsafe) {
        out["unsafe"] = true;  // else the file it writes would be refused
    }
    auto& rules = out["rules"] = nlohmann::ordered_json::object();
    for (const RuleIo& io : rule_ios()) {
        rules[std::string(io.rule.name)] = nlohmann::ordered_json::parse(io.write(profile).dump());
    }
    return out.dump(2) + "\n";
}

std::vector<RuleDifference> rule_differences(const AllocatorProfile& before, const AllocatorProfile& after) {
    std::vector<RuleDifference> differences;
    if (before.inplace_ops != after.inplace_ops) {
        differences.push_back({"inplace_ops", "", ops_difference(before.inplace_ops, after.inplace_ops)});
    }
    for (const RuleIo& io : rule_ios()) {
        if (io.rule.name == "inplace_ops") {
            continue;
        }
        const json a = io.write(before);
        const json b = io.write(after);
        if (a != b) {
            differences.push_back({std::string(io.rule.name), value_text(a), value_text(b)});
        }
    }
    return differences;
}

std::string rule_differences_text(const AllocatorProfile& before, const AllocatorProfile& after) {
    std::string text;
    for (const RuleDifference& d : rule_differences(before, after)) {
        text += (text.empty() ? "" : "; ") + d.rule + " " + (d.before.empty() ? d.after : d.before + " -> " + d.after);
    }
    return text.empty() ? "no rule differs" : text;
}

std::span<const StateRuleRow> state_rule_rows() {
    static const std::vector<StateRuleRow> rows = [] {
        std::vector<StateRuleRow> list;
        for (const RuleIo& io : rule_ios()) {
            if (!io.rule.state_label.empty()) {
                list.push_back({io.rule.name, io.rule.state_label, io.word});
            }
        }
        return list;
    }();
    return rows;
}

std::span<const PolicyRule> policy_rules() {
    static const std::vector<PolicyRule> rules = [] {
        std::vector<PolicyRule> list;
        for (const RuleIo& io : rule_ios()) {
            list.push_back(io.rule);
        }
        return list;
    }();
    return rules;
}

} // namespace gallocsim
