// SVG pictures of plans: what is drawn where, read back through the data-* attributes.
#include "simulator/model/examples.hpp"
#include "simulator/analysis/render.hpp"
#include "simulator/model/tensor_color.hpp"

#include "golden_files.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>

namespace gallocsim {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
        ++n;
    }
    return n;
}

class SchedIssuePicture : public ::testing::Test {
protected:
    GraphFile file = sched_issue_example();
    GgmlPlan plan = run_ggml_plan(file);
    const GraphLifetimes& lifetimes = plan.lifetimes;
    PlanPicture picture = ggml_plan_picture(file, plan);
};

// ggml's plan of the sched-issue graph, one 96-byte chunk:
//
//   offset   step 0   step 1   step 2
//   64-96    b2       b2
//   32-64    a2       ab (in place of a2)  ab
//    0-32    c        c        result (in place of c)
TEST_F(SchedIssuePicture, HoldsEachTensorWhereGgmlPutIt) {
    ASSERT_EQ(picture.bands.size(), 1u);
    EXPECT_EQ(picture.bands[0].label, "CPU chunk 0");
    EXPECT_EQ(picture.bands[0].size, 96u);
    EXPECT_EQ(picture.step_labels, (std::vector<std::string>{"start", "ab", "result"}));
    std::vector<std::tuple<std::string, int, int, std::size_t, std::size_t>> blocks;
    for (const PictureBlock& b : picture.bands[0].blocks) {
        blocks.emplace_back(b.name, b.first, b.last, b.offset, b.size);
    }
    using Row = std::tuple<std::string, int, int, std::size_t, std::size_t>;
    EXPECT_EQ(blocks, (std::vector<Row>{{"c", 0, 2, 0, 32}, {"a2", 0, 1, 32, 32}, {"b2", 0, 1, 64, 32},
                                        {"ab", 1, 2, 32, 32}, {"result", 2, 2, 0, 32}}));
}

TEST_F(SchedIssuePicture, TimelineDrawsEveryLifetimeAndMarksThePeak) {
    const std::string svg = render_timeline_svg(picture);
    EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
    EXPECT_TRUE(svg.ends_with("</svg>\n"));
    EXPECT_EQ(count(svg, "class=\"tensor\""), 5u);
    EXPECT_NE(svg.find("data-name=\"b2\" data-offset=\"64\" data-size=\"32\" data-first=\"0\" data-last=\"1\""), std::string::npos);
    EXPECT_NE(svg.find("fill=\"" + tensor_rgb("b2").hex() + "\""), std::string::npos);
    // All 96 bytes are in use at the start (c, a2, b2); step 1 too, but the first peak is marked.
    EXPECT_NE(svg.find("class=\"peak\""), std::string::npos);
    EXPECT_NE(svg.find("data-step=\"0\" data-bytes=\"96\""), std::string::npos);
    EXPECT_NE(svg.find("fill=\"url(#free)\""), std::string::npos);  // free space is hatched
}

//   at step 2:  0 [c = result) 32 [ab) 64 [free, hatched) 96
//
// c is live in step 2 (result reads it), but result takes its bytes over in place there:
// the bar shows them once, as result's, as the timeline draws step 2's column.
TEST_F(SchedIssuePicture, MemoryMapShowsLiveTensorsAndFreeSpace) {
    const std::string svg = render_memory_map_svg(picture, 2);
    EXPECT_EQ(count(svg, "class=\"tensor\""), 2u);
    EXPECT_EQ(svg.find("data-name=\"c\""), std::string::npos);
    EXPECT_NE(svg.find("data-name=\"result\" data-offset=\"0\""), std::string::npos);
    EXPECT_NE(svg.find("data-name=\"ab\" data-offset=\"32\""), std::string::npos);
    EXPECT_EQ(count(svg, "class=\"free\""), 1u);
    EXPECT_NE(svg.find("class=\"free\" fill=\"url(#free)\" data-offset=\"64\" data-size=\"32\""), std::string::npos);
    EXPECT_NE(svg.find("64 B in use of 96 B"), std::string::npos);
    EXPECT_NE(svg.find("at step 2 (result)"), std::string::npos);
}

TEST_F(SchedIssuePicture, MemoryMapRejectsStepsOutsideThePlan) {
    EXPECT_THROW(render_memory_map_svg(picture, 3), std::out_of_range);
    EXPECT_THROW(render_memory_map_svg(picture, -1), std::out_of_range);
}

// The six corners of the hue circle, at full saturation and value, are the primaries and
// secondaries; grey has no chroma.
TEST(TensorColour, HsvToRgbAtTheCornersOfTheHueCircle) {
    EXPECT_EQ(hsv_to_rgb(0, 255, 255), (Rgb{255, 0, 0}));
    EXPECT_EQ(hsv_to_rgb(60, 255, 255), (Rgb{255, 255, 0}));
    EXPECT_EQ(hsv_to_rgb(120, 255, 255), (Rgb{0, 255, 0}));
    EXPECT_EQ(hsv_to_rgb(180, 255, 255), (Rgb{0, 255, 255}));
    EXPECT_EQ(hsv_to_rgb(240, 255, 255), (Rgb{0, 0, 255}));
    EXPECT_EQ(hsv_to_rgb(300, 255, 255), (Rgb{255, 0, 255}));
    EXPECT_EQ(hsv_to_rgb(42, 0, 128), (Rgb{128, 128, 128}));
    EXPECT_EQ((Rgb{255, 10, 0}).hex(), "#ff0a00");
}

// FNV-1a of "" is its offset basis, 2166136261; of "a": (2166136261 ^ 97) * 16777619 mod 2^32
// = 3826002220 (the published test vector 0xe40c292c).
TEST(TensorColour, NameHashIsFnv1a) {
    EXPECT_EQ(stable_name_hash(""), 2166136261u);
    EXPECT_EQ(stable_name_hash("a"), 0xe40c292cu);
}

// Light enough for dark text on top (value 215 to 249 of 255 is the brightest channel), and
// the same name gets the same colour in every picture.
TEST(TensorColour, EveryNameGetsALightStableColour) {
    for (int i = 0; i < 500; ++i) {
        const std::string name = "tensor-" + std::to_string(i);
        const Rgb c = tensor_rgb(name);
        const int brightest = std::max({c.red, c.green, c.blue});
        EXPECT_GE(brightest, 215) << name;
        EXPECT_LE(brightest, 249) << name;
        EXPECT_EQ(tensor_rgb(std::string(name)), c);
    }
    EXPECT_NE(tensor_rgb("a"), tensor_rgb("b"));
}

TEST(Render, NamesAreEscaped) {
    PlanPicture picture{"t", {"start"}, {{"band", 64, {{"x<&>\"y", 0, 0, 0, 64}}}}};
    const std::string svg = render_timeline_svg(picture);
    EXPECT_NE(svg.find("data-name=\"x&lt;&amp;&gt;&quot;y\""), std::string::npos);
    EXPECT_EQ(svg.find("x<&>"), std::string::npos);
}

// XML 1.0 cannot hold a bell even as &#7;, and a right-to-left override would reverse the
// label: both are written as visible escapes (model/visible_text.hpp).
TEST(Render, ControlAndBidiCharactersInNamesAreShownAsEscapes) {
    PlanPicture picture{"t", {"start"}, {{"band", 64, {{"a\x07" "b\xe2\x80\xae" "c", 0, 0, 0, 64}}}}};
    const std::string svg = render_timeline_svg(picture);
    EXPECT_NE(svg.find("data-name=\"a\\x07b\\u202Ec\""), std::string::npos);
    EXPECT_EQ(svg.find('\a'), std::string::npos);
    EXPECT_EQ(svg.find("\xe2\x80\xae"), std::string::npos);
}

//   0      16      32      48      64
//   [a.....)       [b......)            b live, a dead at step 1: [0,32) and [48,64) free
TEST(Render, FreeRangesAtAStep) {
    const PictureBand band{"band", 64, {{"a", 0, 0, 0, 16}, {"b", 0, 1, 32, 16}, {"c", 1, 1, 36, 4}}};
    using Ranges = std::vector<std::pair<std::size_t, std::size_t>>;
    EXPECT_EQ(free_ranges(band, 0), (Ranges{{16, 16}, {48, 16}}));
    EXPECT_EQ(free_ranges(band, 1), (Ranges{{0, 32}, {48, 16}}));  // c lies inside b: counted once
    EXPECT_EQ(free_ranges(band, 2), (Ranges{{0, 64}}));
}

TEST(Render, ChunksAreBandsOfTheirOwn) {
    const auto path = test_support::golden_dir() / "llama-7b-4l-t512-chunked.json";
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << path << " not found";
    }
    GraphFile file = load_graph_file(path);
    // One band per chunk of upstream ggml's plan, as the golden file recorded it from ggml
    // itself: one buffer of three chunks.
    ASSERT_TRUE(file.expected.has_value());
    const std::vector<std::size_t>& upstream_chunks = file.expected->chunk_sizes.at(0);
    ASSERT_EQ(file.expected->chunk_sizes.size(), 1u);
    ASSERT_EQ(upstream_chunks.size(), 3u);
    const GgmlPlan plan = run_ggml_plan(file);
    const PlanPicture picture = ggml_plan_picture(file, plan);
    ASSERT_EQ(picture.bands.size(), 3u);
    for (std::size_t chunk = 0; chunk < 3; ++chunk) {
        EXPECT_EQ(picture.bands[chunk].label, "CPU chunk " + std::to_string(chunk));
        EXPECT_EQ(picture.bands[chunk].size, upstream_chunks[chunk]) << "chunk " << chunk;
    }
    EXPECT_EQ(count(render_timeline_svg(picture), "class=\"band\""), 3u);
}

TEST(Render, AnotherPlannersArena) {
    const ArenaProblem problem{"paper", {{"t0", 0, 1, 32}, {"t1", 1, 4, 28}, {"t2", 2, 5, 36}, {"t3", 3, 5, 16},
                                         {"t4", 4, 5, 8}, {"t5", 5, 7, 64}, {"t6", 6, 8, 10}, {"t7", 7, 8, 40}}};
    const PlanPicture picture = arena_plan_picture("greedy", problem, plan_greedy_by_size(problem), {});
    ASSERT_EQ(picture.bands.size(), 1u);
    EXPECT_EQ(picture.bands[0].size, 124u);
    EXPECT_EQ(picture.step_labels.size(), 9u);  // steps 0-8, numbered
    EXPECT_NE(render_timeline_svg(picture).find("data-step=\"5\" data-bytes=\"124\""), std::string::npos);
}

} // namespace
} // namespace gallocsim

namespace gallocsim {
namespace {

// The render draws ggml's plan from the trace's timeline, the lifetimes are the analysis
// layer's reading of the same plan, and the places are the plan's record (what conform
// compares with upstream). The three must agree on every golden file: a tensor outside ggml's in-place pairs is drawn over exactly its lifetime's
// node steps, at the offset the plan gave it; a parent whose bytes a node took over is drawn
// up to that node's step, where the node's block starts.
TEST(Render, GgmlsPictureAgreesWithTheGraphsLifetimesOnEveryGoldenFile) {
    std::size_t compared = 0;
    test_support::for_each_golden_file("", [&](const std::filesystem::path& path) {
        GraphFile file = load_graph_file(path);
        const GgmlPlan plan = run_ggml_plan(file);
        if (!plan.run.error.empty()) {
            return;
        }
        const GraphLifetimes& lifetimes = plan.lifetimes;
        const PlanPicture picture = ggml_plan_picture(file, plan);
        std::map<std::string, std::vector<const PictureBlock*>> blocks;
        for (const PictureBand& band : picture.bands) {
            for (const PictureBlock& block : band.blocks) {
                blocks[block.name].push_back(&block);
            }
        }
        std::set<std::string> in_place;
        for (const InPlacePair& pair : plan.in_place) {
            const std::string& node = plan.trace.tensor(pair.node).name;
            const std::string& parent = plan.trace.tensor(pair.parent).name;
            in_place.insert(node);
            in_place.insert(parent);
            ASSERT_TRUE(blocks.contains(node) && blocks.contains(parent)) << node << " in place of " << parent;
            const PictureBlock& taker = *blocks[node].front();
            EXPECT_TRUE(std::ranges::any_of(blocks[parent], [&](const PictureBlock* given) {
                return given->last == taker.first && given->offset == taker.offset;
            })) << node << " in place of " << parent;
        }
        for (const TensorLifetime& lifetime : lifetimes.tensors) {
            const std::string& name = plan.trace.tensor(lifetime.tensor).name;
            if (in_place.contains(name)) {
                continue;
            }
            // A graph input node can take a parent's memory in place during the counting pass
            // (step 0); the parent gets memory again later, and its lifetime is that of the
            // final memory. The picture shows both blocks.
            ASSERT_FALSE(blocks[name].empty()) << name;
            for (std::size_t i = 0; i + 1 < blocks[name].size(); ++i) {
                EXPECT_EQ(blocks[name][i]->last, kStartStep) << name;
            }
            const PictureBlock& block = *blocks[name].back();
            EXPECT_EQ(block.first, lifetime.first) << name;
            EXPECT_EQ(block.last, lifetime.last) << name;
            const auto placed = std::ranges::find(plan.run.plan.tensors, lifetime.tensor, &PlacedTensor::tensor);
            ASSERT_NE(placed, plan.run.plan.tensors.end()) << name;
            EXPECT_EQ(block.offset, placed->place.offset) << name;
            EXPECT_EQ(block.size, lifetime.aligned_size) << name;
            ++compared;
        }
    });
    EXPECT_GT(compared, 10000u);  // the corpus has 65,560 leafs and nodes; most are not in place
}

} // namespace
} // namespace gallocsim

namespace gallocsim {
namespace {

// A text of an SVG picture and the box it covers, estimated as the render sizes texts:
// 6.2 px per character at 10 px (bold a tenth wider), scaled with the font size.
struct PlacedText {
    std::string content;
    double left = 0, right = 0, top = 0, bottom = 0;
};

std::vector<PlacedText> placed_texts(const std::string& svg) {
    static const std::regex text(R"re(<text x="([-\d.]+)" y="([-\d.]+)"([^>]*)>([^<]*)</text>)re");
    std::vector<PlacedText> texts;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        const std::string attributes = m[3].str();
        const std::string content = std::regex_replace(m[4].str(), std::regex("&[a-z]+;"), "&");
        double size = 10;
        if (std::smatch font; std::regex_search(attributes, font, std::regex(R"re(font-size="([\d.]+)")re"))) {
            size = std::stod(font[1].str());
        }
        const double bold = attributes.find("bold") != std::string::npos ? 1.1 : 1.0;
        const double width = 6.2 * bold * size / 10 * static_cast<double>(content.size());
        const double x = std::stod(m[1].str()), y = std::stod(m[2].str());
        double left = x;
        if (attributes.find("text-anchor=\"end\"") != std::string::npos) {
            left = x - width;
        } else if (attributes.find("text-anchor=\"middle\"") != std::string::npos) {
            left = x - width / 2;
        }
        texts.push_back({content, left, left + width, y - size * 0.8, y + size * 0.2});
    }
    return texts;
}

// Two texts collide when their boxes overlap by more than a pixel each way.
std::optional<std::string> first_collision(const std::string& svg) {
    std::vector<PlacedText> texts = placed_texts(svg);
    std::ranges::sort(texts, {}, &PlacedText::left);
    for (std::size_t i = 0; i < texts.size(); ++i) {
        for (std::size_t j = i + 1; j < texts.size() && texts[j].left < texts[i].right; ++j) {
            const PlacedText& a = texts[i];
            const PlacedText& b = texts[j];
            if (std::min(a.right, b.right) - std::max(a.left, b.left) > 1 && std::min(a.bottom, b.bottom) - std::max(a.top, b.top) > 1) {
                return "\"" + a.content + "\" and \"" + b.content + "\"";
            }
        }
    }
    return std::nullopt;
}

// Seen before: "CPU (buffer 0) chunk 01104256" (a band label running into the offset axis)
// and "qkv-0qkv_b-0" (a parent's name under the node that took its bytes over in place).
TEST(Render, NoTwoTextsOverlapOnAnyGoldenFile) {
    test_support::for_each_golden_file("", [](const std::filesystem::path& path) {
        GraphFile file = load_graph_file(path);
        const GgmlPlan plan = run_ggml_plan(file);
        if (!plan.run.error.empty()) {
            return;
        }
        const PlanPicture picture = ggml_plan_picture(file, plan);
        if (const auto collision = first_collision(render_timeline_svg(picture))) {
            ADD_FAILURE() << "timeline: " << *collision;
        }
        const int steps = static_cast<int>(picture.step_labels.size());
        for (int step : {0, steps / 4, steps / 2, 3 * steps / 4, steps - 1}) {
            if (const auto collision = first_collision(render_memory_map_svg(picture, step))) {
                ADD_FAILURE() << "memory map at step " << step << ": " << *collision;
            }
        }
    });
}

// The checker itself: two names drawn on top of each other are found.
TEST(Render, TheCollisionCheckFindsOverlappingTexts) {
    EXPECT_EQ(first_collision(R"(<text x="10" y="20">qkv-0</text><text x="30" y="20">qkv_b-0</text>)"),
              std::optional<std::string>("\"qkv-0\" and \"qkv_b-0\""));
    EXPECT_EQ(first_collision(R"(<text x="10" y="20">qkv-0</text><text x="50" y="20">qkv_b-0</text>)"), std::nullopt);
}

} // namespace
} // namespace gallocsim
