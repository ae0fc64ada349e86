#include "simulator/analysis/render.hpp"

#include "simulator/model/amount_text.hpp"
#include "simulator/model/tensor_color.hpp"
#include "simulator/model/visible_text.hpp"
#include "simulator/trace/timeline.hpp"

#include "reference/dynamic_allocator.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace gallocsim {

namespace {

constexpr double kLeft = 180;       // room for band labels and offsets
constexpr double kRight = 24;
constexpr double kTop = 48;         // room for the title
constexpr double kBandGap = 36;
constexpr double kPlotHeight = 520; // shared among the timeline's bands
constexpr double kMinBand = 72;
constexpr double kMapWidth = 1000;  // the memory map's address bars
constexpr double kBarHeight = 44;
constexpr double kCharWidth = 6.2;  // 10px sans-serif, roughly
constexpr std::size_t kLabelChars = 24;  // bold label characters that fit left of the plot

std::string num(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    std::string s = text;
    while (s.back() == '0') {
        s.pop_back();
    }
    if (s.back() == '.') {
        s.pop_back();
    }
    return s;
}

// Text for XML: control characters (which XML 1.0 cannot hold even as references) and bidi
// controls made visible first, then the markup characters escaped.
std::string escape(std::string_view text) {
    std::string out;
    for (char c : visible_text(text)) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string steps_text(int first, int last) {
    return first == last ? "step " + std::to_string(first) : "steps " + std::to_string(first) + "-" + std::to_string(last);
}

class Svg {
public:
    Svg(double width, double height) {
        out_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(height)
             << "\" viewBox=\"0 0 " << num(width) << " " << num(height) << "\" font-family=\"sans-serif\" font-size=\"10\">\n"
             << "<defs><pattern id=\"free\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
                "patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#f6f6f6\"/>"
                "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#d0d0d0\" stroke-width=\"3\"/></pattern></defs>\n"
             << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    }

    void text(double x, double y, std::string_view content, std::string_view extra = {}) {
        out_ << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\"" << (extra.empty() ? "" : " ") << extra << ">"
             << escape(content) << "</text>\n";
    }

    void raw(const std::string& element) { out_ << element << "\n"; }

    std::string finish() {
        out_ << "</svg>\n";
        return out_.str();
    }

private:
    std::ostringstream out_;
};

std::string rect(double x, double y, double w, double h, const std::string& attributes) {
    return "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(w, 0.5)) + "\" height=\"" +
           num(std::max(h, 0.5)) + "\" " + attributes;
}

std::string block_attributes(const PictureBlock& b) {
    return "data-name=\"" + escape(b.name) + "\" data-offset=\"" + std::to_string(b.offset) + "\" data-size=\"" +
           std::to_string(b.size) + "\" data-first=\"" + std::to_string(b.first) + "\" data-last=\"" +
           std::to_string(b.last) + "\"";
}

std::string block_tooltip(const PictureBlock& b) {
    return "<title>" + escape(b.name) + ": bytes [" + std::to_string(b.offset) + ", " + std::to_string(b.offset + b.size) +
           "), " + steps_text(b.first, b.last) + "</title>";
}

} // namespace

std::vector<std::pair<std::size_t, std::size_t>> free_ranges(const PictureBand& band, int step) {
    std::vector<std::pair<std::size_t, std::size_t>> used;
    for (const PictureBlock& b : band.blocks) {
        if (b.first <= step && step <= b.last && b.size > 0) {
            used.emplace_back(b.offset, b.offset + b.size);
        }
    }
    std::ranges::sort(used);
    std::vector<std::pair<std::size_t, std::size_t>> free;
    std::size_t at = 0;
    for (const auto& [begin, end] : used) {
        if (begin > at) {
            free.emplace_back(at, begin - at);
        }
        at = std::max(at, end);
    }
    if (band.size > at) {
        free.emplace_back(at, band.size - at);
    }
    return free;
}

namespace {

// Where a block's bytes are taken over in place: another block starts at the same offset in
// the step where it ends (a valid plan gives no other block bytes in use). Keyed by (offset,
// first step), holding the sizes of the blocks that start there.
using TakeOvers = std::map<std::pair<std::size_t, int>, std::vector<std::size_t>>;

TakeOvers take_overs(const PictureBand& band) {
    TakeOvers starts;
    for (const PictureBlock& b : band.blocks) {
        starts[std::pair(b.offset, b.first)].push_back(b.size);
    }
    return starts;
}

// The taker's size when a node takes this block's bytes over in place at its last step. (A
// graph input can be taken over in the step it got its bytes, so the block itself may start
// there too.)
std::optional<std::size_t> taken_over(const TakeOvers& starts, const PictureBlock& b) {
    const auto it = starts.find(std::pair(b.offset, b.last));
    if (it == starts.end()) {
        return std::nullopt;
    }
    const auto& sizes = it->second;
    if (b.first != b.last) {
        return sizes.front();
    }
    if (sizes.size() < 2) {
        return std::nullopt;  // only the block itself starts there
    }
    return sizes.front() == b.size ? sizes[1] : sizes.front();
}

// Bytes in use at every step, in one sweep: an in-place child and its parent share the
// bytes of the step where one hands over to the other, so they count once.
std::vector<std::size_t> used_bytes_per_step(const PictureBand& band, int steps) {
    const TakeOvers starts = take_overs(band);
    std::vector<std::int64_t> change(static_cast<std::size_t>(steps) + 1, 0);
    auto add = [&](int from, int to, std::size_t bytes, int sign) {  // over steps [from, to]
        if (from < steps && to >= from) {
            change[static_cast<std::size_t>(std::max(from, 0))] += sign * static_cast<std::int64_t>(bytes);
            change[static_cast<std::size_t>(std::min(to, steps - 1)) + 1] -= sign * static_cast<std::int64_t>(bytes);
        }
    };
    for (const PictureBlock& b : band.blocks) {
        add(b.first, b.last, b.size, 1);
        if (const auto taker = taken_over(starts, b)) {
            add(b.last, b.last, std::min(b.size, *taker), -1);
        }
    }
    std::vector<std::size_t> used(static_cast<std::size_t>(steps), 0);
    std::int64_t running = 0;
    for (std::size_t step = 0; step < used.size(); ++step) {
        running += change[step];
        used[step] = static_cast<std::size_t>(std::max<std::int64_t>(running, 0));
    }
    return used;
}

// Bytes in use at one step.
std::size_t used_bytes(const PictureBand& band, int step) {
    std::size_t free = 0;
    for (const auto& [offset, size] : free_ranges(band, step)) {
        free += size;
    }
    return band.size - free;
}

// A band's label in lines of at most `width` characters, broken at spaces.
std::vector<std::string> wrapped(const std::string& text, std::size_t width) {
    std::vector<std::string> lines;
    std::string line;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t space = text.find(' ', at);
        const std::string word = text.substr(at, space == std::string::npos ? std::string::npos : space - at);
        at = space == std::string::npos ? text.size() : space + 1;
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            lines.push_back(std::move(line));
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty()) {
        lines.push_back(std::move(line));
    }
    return lines;
}

std::string step_name(const PlanPicture& picture, int step) {
    return "step " + std::to_string(step) + " (" + picture.step_labels[static_cast<std::size_t>(step)] + ")";
}

} // namespace

PlanPicture ggml_plan_picture(const GraphFile& file, const GgmlPlan& plan) {
    PlanPicture picture;
    picture.title = (file.name.empty() ? std::string("graph") : file.name) + ": ggml's plan";
    const Trace& trace = plan.trace;
    const Timeline& timeline = plan.timeline;
    for (std::size_t step = 0; step < timeline.steps_per_plan(); ++step) {
        picture.step_labels.push_back(step_label(file, static_cast<int>(step)));
    }
    // band index of (buffer id, chunk)
    std::vector<std::vector<std::size_t>> band_of(plan.run.plan.chunk_sizes.size());
    const bool several_ids = std::ranges::count_if(plan.run.plan.chunk_sizes, [](const auto& c) { return !c.empty(); }) > 1;
    for (std::size_t id = 0; id < plan.run.plan.chunk_sizes.size(); ++id) {
        const BufferTypeSpec& spec = file.buffer_types[static_cast<std::size_t>(file.buffers[id])];
        const auto& chunks = plan.run.plan.chunk_sizes[id];
        for (std::size_t c = 0; c < chunks.size(); ++c) {
            band_of[id].push_back(picture.bands.size());
            std::string label = spec.name + (several_ids ? " (buffer " + std::to_string(id) + ")" : "");
            picture.bands.push_back({label + " chunk " + std::to_string(c), chunks[c], {}});
        }
    }
    // The spans of the plan that holds (a trace's last), in the order the trace gave memory.
    // Buffer ids of one buffer type share its allocator's memory: the plan's chunks are
    // under the lowest of them.
    const std::size_t last_plan = timeline.plan_count() - 1;
    const std::vector<int> allocator_ids = trace.allocator_buffer_ids();
    for (const MemorySpan& span : timeline.spans()) {
        const auto id = static_cast<std::size_t>(allocator_ids.at(static_cast<std::size_t>(span.allocator)));
        if (span.plan != last_plan || id >= band_of.size() || static_cast<std::size_t>(span.address.chunk) >= band_of[id].size()) {
            continue;
        }
        picture.bands[band_of[id][static_cast<std::size_t>(span.address.chunk)]].blocks.push_back(
            {trace.tensor(span.tensor).name, static_cast<int>(timeline.step_in_plan(span.first_step)),
             static_cast<int>(timeline.step_in_plan(span.last_step)), span.address.offset, span.size});
    }
    return picture;
}

PlanPicture arena_plan_picture(std::string title, const ArenaProblem& problem, const ArenaPlan& plan,
                               std::vector<std::string> step_labels) {
    PlanPicture picture;
    picture.title = std::move(title);
    PictureBand band{problem.name, plan.size, {}};
    int last_step = 0;
    for (std::size_t i = 0; i < problem.blocks.size(); ++i) {
        const LiveBlock& b = problem.blocks[i];
        band.blocks.push_back({b.name, b.first, b.last, plan.offsets.at(i), block_bytes(b)});
        last_step = std::max(last_step, b.last);
    }
    picture.bands.push_back(std::move(band));
    picture.step_labels = std::move(step_labels);
    while (static_cast<int>(picture.step_labels.size()) <= last_step) {
        picture.step_labels.push_back(std::to_string(picture.step_labels.size()));
    }
    return picture;
}

std::string render_timeline_svg(const PlanPicture& picture) {
    const int steps = std::max<int>(static_cast<int>(picture.step_labels.size()), 1);
    const double step_width = std::clamp(1100.0 / steps, 4.0, 64.0);
    std::size_t total = 0;
    for (const PictureBand& band : picture.bands) {
        total += band.size;
    }
    std::vector<double> heights;
    for (const PictureBand& band : picture.bands) {
        heights.push_back(std::max(kMinBand, total == 0 ? kMinBand : kPlotHeight * static_cast<double>(band.size) / static_cast<double>(total)));
    }
    double plot_height = 0;
    for (double h : heights) {
        plot_height += h + kBandGap;
    }
    const double width = std::max(kLeft + steps * step_width + kRight, 720.0);
    Svg svg(width, kTop + plot_height + 40);
    svg.text(kLeft, 24, picture.title, "font-size=\"14\" font-weight=\"bold\"");

    double top = kTop;
    for (std::size_t i = 0; i < picture.bands.size(); ++i) {
        const PictureBand& band = picture.bands[i];
        const double height = heights[i];
        const double bottom = top + height;
        const double scale = band.size == 0 ? 0 : height / static_cast<double>(band.size);
        svg.raw(rect(kLeft, top, steps * step_width, height,
                     "class=\"band\" fill=\"url(#free)\" stroke=\"#888\" data-label=\"" + escape(band.label) +
                         "\" data-size=\"" + std::to_string(band.size) + "\"/>"));
        // The offset axis's ends at the band's corners; the label and size on lines of their
        // own between them, so that no two texts share a line.
        svg.text(kLeft - 6, top + 8, std::to_string(band.size), "text-anchor=\"end\"");
        svg.text(kLeft - 6, bottom, "0", "text-anchor=\"end\"");
        double line_y = top + 24;
        for (const std::string& line : wrapped(band.label, kLabelChars)) {
            svg.text(8, line_y, line, "font-weight=\"bold\"");
            line_y += 13;
        }
        svg.text(8, line_y, binary_size(band.size));
        const TakeOvers starts = take_overs(band);
        for (const PictureBlock& b : band.blocks) {
            // The step where a node takes the bytes over in place is drawn as the node's (a
            // block taken over in its only step stays under the node, unnamed).
            const bool handed_on = taken_over(starts, b).has_value();
            const int drawn_last = handed_on && b.last > b.first ? b.last - 1 : b.last;
            const double x = kLeft + b.first * step_width;
            const double w = (drawn_last - b.first + 1) * step_width;
            const double h = static_cast<double>(b.size) * scale;
            const double y = bottom - static_cast<double>(b.offset) * scale - h;
            svg.raw(rect(x, y, w, h, "class=\"tensor\" fill=\"" + tensor_rgb(b.name).hex() + "\" stroke=\"#333\" stroke-width=\"0.5\" " +
                                         block_attributes(b) + ">" + block_tooltip(b) + "</rect>"));
            if (!(handed_on && b.last == b.first) && w >= kCharWidth * static_cast<double>(b.name.size()) + 4 && h >= 12) {
                svg.text(x + 2, y + h / 2 + 3.5, b.name, "class=\"name\"");
            }
        }
        // The step where this band holds the most live bytes.
        int peak_step = 0;
        std::size_t peak = 0;
        const std::vector<std::size_t> used = used_bytes_per_step(band, steps);
        for (int step = 0; step < steps; ++step) {
            if (used[static_cast<std::size_t>(step)] > peak) {
                peak = used[static_cast<std::size_t>(step)];
                peak_step = step;
            }
        }
        if (peak > 0) {
            const double x = kLeft + (peak_step + 0.5) * step_width;
            svg.raw("<line class=\"peak\" x1=\"" + num(x) + "\" y1=\"" + num(top - 4) + "\" x2=\"" + num(x) + "\" y2=\"" +
                    num(bottom) + "\" stroke=\"#c00\" stroke-dasharray=\"4 3\" data-step=\"" + std::to_string(peak_step) +
                    "\" data-bytes=\"" + std::to_string(peak) + "\"/>");
            // Labels right of the line, or left of it in the right half of the plot.
            const bool left_of_line = x > kLeft + steps * step_width / 2;
            svg.text(left_of_line ? x - 4 : x + 4, top - 6, "peak " + binary_size(peak) + " in use at " + step_name(picture, peak_step),
                     left_of_line ? "fill=\"#c00\" text-anchor=\"end\"" : "fill=\"#c00\"");
        }
        top = bottom + kBandGap;
    }
    // Step axis: a tick every few steps, the node's name in its tooltip.
    const int every = std::max(1, (steps + 15) / 16);
    for (int step = 0; step < steps; step += every) {
        const double x = kLeft + (step + 0.5) * step_width;
        // The title beside the text, not inside it: some renderers draw a text's title as text.
        svg.raw("<g><title>" + escape(step_name(picture, step)) + "</title><text x=\"" + num(x) + "\" y=\"" + num(top) +
                "\" text-anchor=\"middle\">" + std::to_string(step) + "</text></g>");
    }
    svg.text(kLeft, top + 16, "step (0 = start: leafs and inputs; then one node per step)");
    return svg.finish();
}

std::string render_memory_map_svg(const PlanPicture& picture, int step) {
    if (step < 0 || step >= static_cast<int>(picture.step_labels.size())) {
        throw std::out_of_range("step " + std::to_string(step) + " is not in the plan (steps 0 to " +
                                std::to_string(static_cast<int>(picture.step_labels.size()) - 1) + ")");
    }
    std::size_t live = 0, total = 0;
    for (const PictureBand& band : picture.bands) {
        live += used_bytes(band, step);
        total += band.size;
    }
    const double height = kTop + static_cast<double>(picture.bands.size()) * (kBarHeight + kBandGap) + 24;
    Svg svg(kLeft + kMapWidth + kRight, height);
    svg.text(kLeft, 20, picture.title + " at " + step_name(picture, step), "font-size=\"14\" font-weight=\"bold\"");
    svg.text(kLeft, 36, binary_size(live) + " in use of " + binary_size(total));
    double top = kTop + 14;
    for (const PictureBand& band : picture.bands) {
        const double scale = band.size == 0 ? 0 : kMapWidth / static_cast<double>(band.size);
        const std::vector<std::string> label = wrapped(band.label, kLabelChars);
        double line_y = top + kBarHeight / 2 + 4 - 6.5 * static_cast<double>(label.size() - 1);
        for (const std::string& line : label) {
            svg.text(8, line_y, line, "font-weight=\"bold\"");
            line_y += 13;
        }
        const TakeOvers starts = take_overs(band);
        svg.raw(rect(kLeft, top, kMapWidth, kBarHeight, "class=\"bar\" fill=\"none\" stroke=\"#888\"/>"));
        for (const auto& [offset, size] : free_ranges(band, step)) {
            svg.raw(rect(kLeft + static_cast<double>(offset) * scale, top, static_cast<double>(size) * scale, kBarHeight,
                         "class=\"free\" fill=\"url(#free)\" data-offset=\"" + std::to_string(offset) + "\" data-size=\"" +
                             std::to_string(size) + "\"><title>free: bytes [" + std::to_string(offset) + ", " +
                             std::to_string(offset + size) + ")</title></rect>"));
        }
        for (const PictureBlock& b : band.blocks) {
            // A block a node took over in place at this step is the node's now.
            if (b.first > step || step > b.last || b.size == 0 || (b.last == step && taken_over(starts, b))) {
                continue;
            }
            const double x = kLeft + static_cast<double>(b.offset) * scale;
            const double w = static_cast<double>(b.size) * scale;
            svg.raw(rect(x, top, w, kBarHeight, "class=\"tensor\" fill=\"" + tensor_rgb(b.name).hex() +
                                                    "\" stroke=\"#333\" stroke-width=\"0.5\" " + block_attributes(b) + ">" +
                                                    block_tooltip(b) + "</rect>"));
            if (w >= kCharWidth * static_cast<double>(b.name.size()) + 4) {
                svg.text(x + 2, top + kBarHeight / 2 + 3.5, b.name, "class=\"name\"");
            }
        }
        svg.text(kLeft, top + kBarHeight + 12, "0");
        svg.text(kLeft + kMapWidth, top + kBarHeight + 12, std::to_string(band.size), "text-anchor=\"end\"");
        top += kBarHeight + kBandGap;
    }
    return svg.finish();
}

std::string render_policy_chart_svg(const PolicyComparison& c) {
    // Colour-blind-safe (Okabe-Ito), in policy order; the reference is grey.
    static constexpr const char* kColours[] = {"#9e9e9e", "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00"};
    constexpr double kLabelWidth = 300;
    constexpr double kBarsWidth = 420;
    constexpr double kPolicyBar = 10;
    constexpr double kChartTop = 30;
    const double legend_height = 16.0 * static_cast<double>(c.policies.size()) + 10;
    const double row_height = kPolicyBar * static_cast<double>(c.policies.size()) + 10;
    double top_ratio = 1.1;
    for (const PolicyGraphResult& g : c.graphs) {
        for (const PolicyPlan& plan : g.plans) {
            if (!plan.broken() && g.lower_bound > 0) {
                top_ratio = std::max(top_ratio, static_cast<double>(plan.total) / static_cast<double>(g.lower_bound));
            }
        }
    }
    // The axis starts at 0.9 of the bound: the differences that matter are a few per cent.
    constexpr double kAxisStart = 0.9;
    const auto x_of = [&](double ratio) {
        return kLabelWidth + kBarsWidth * (std::clamp(ratio, kAxisStart, top_ratio) - kAxisStart) / (top_ratio - kAxisStart);
    };
    const double height = kChartTop + legend_height + row_height * static_cast<double>(c.graphs.size()) + 30;
    Svg svg(kLabelWidth + kBarsWidth + 60, height);
    svg.text(8, 16, "plan size over the in-place-aware bound, per graph (1.000 = the bound)", "font-weight=\"bold\"");
    for (std::size_t p = 0; p < c.policies.size(); ++p) {
        const double y = kChartTop + 16.0 * static_cast<double>(p);
        svg.raw(rect(8, y, 10, 10, "fill=\"" + std::string(kColours[p % std::size(kColours)]) + "\"/>"));
        svg.text(24, y + 9, std::string(c.policies[p]->name) + (p == 0 ? " (reference)" : ""));
    }
    const double rows_top = kChartTop + legend_height;
    const double bound_x = x_of(1.0);
    svg.raw("<line x1=\"" + num(bound_x) + "\" y1=\"" + num(rows_top - 4) + "\" x2=\"" + num(bound_x) + "\" y2=\"" +
            num(height - 24) + "\" stroke=\"black\" stroke-dasharray=\"3,2\"/>");
    svg.text(bound_x - 12, height - 12, "bound");
    svg.text(kLabelWidth, height - 12, "0.9");
    svg.text(kLabelWidth + kBarsWidth - 20, height - 12, num(top_ratio).substr(0, 5));
    for (std::size_t i = 0; i < c.graphs.size(); ++i) {
        const PolicyGraphResult& g = c.graphs[i];
        const double y = rows_top + row_height * static_cast<double>(i);
        std::string label = g.label.size() > 48 ? "..." + g.label.substr(g.label.size() - 45) : g.label;
        svg.text(8, y + row_height / 2, label);
        for (std::size_t p = 0; p < g.plans.size(); ++p) {
            const PolicyPlan& plan = g.plans[p];
            const double bar_y = y + kPolicyBar * static_cast<double>(p);
            if (plan.broken()) {
                svg.text(kLabelWidth + 2, bar_y + 9, plan.error.empty() ? "rejected by the checker" : "failed",
                         "fill=\"#d55e00\"");
                continue;
            }
            const double ratio = g.lower_bound > 0 ? static_cast<double>(plan.total) / static_cast<double>(g.lower_bound) : 1.0;
            svg.raw(rect(kLabelWidth, bar_y, x_of(ratio) - kLabelWidth, kPolicyBar - 1,
                         "fill=\"" + std::string(kColours[p % std::size(kColours)]) + "\" data-graph=\"" + escape(g.label) +
                             "\" data-policy=\"" + escape(c.policies[p]->name) + "\" data-bytes=\"" +
                             std::to_string(plan.total) + "\" data-bound=\"" + std::to_string(g.lower_bound) + "\"><title>" +
                             escape(std::string(c.policies[p]->name) + ": " + std::to_string(plan.total) + " bytes") +
                             "</title></rect>"));
        }
    }
    return svg.finish();
}

} // namespace gallocsim
