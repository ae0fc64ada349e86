// predict's report (analysis/predict_report): a configuration read off a committed real-size
// capture, the budget's context search, sizes as the command line writes them. Expected values
// are worked out from the model's shapes and llama.cpp's own log, never from the code under test.
#include "simulator/analysis/predict_report.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

namespace gallocsim {
namespace {

namespace fs = std::filesystem;

const CaptureSession& only_session(const Capture& capture) {
    EXPECT_EQ(capture.sessions.size(), 1U);
    return capture.sessions.front();
}

LlamaAnswer logged(std::string compute_mib) {
    LlamaAnswer answer;
    answer.weights_bytes = 4517937152;  // not used by these checks beyond the total
    answer.sizes = {{"CPU", "KV", "512.00"}, {"CPU", "output", "0.49"}, {"CPU", "compute", std::move(compute_mib)}};
    return answer;
}

// Llama-3.1-8B's shape at a 4096-token context, micro-batch 512, flash attention off: llama.cpp
// logged "CPU compute buffer size = 308.01 MiB" when it made this capture (docs/real-models.md), and
// the buffer is set while kq-0 runs: 4096 keys x 512 tokens x 32 heads x 4 bytes = 256 MiB.
TEST(PredictReport, WithoutFlashAttentionKqSetsTheBufferLlamaCppLogged) {
    const Capture capture = load_capture(fs::path(GALLOCSIM_TEST_DATA_DIR) / "captures" / "llama-3.1-8b-c4096-u512");
    const PredictConfig config{4096, 512, 512, "off", "f16", 0, 1};
    const PredictRow row = predict_row(only_session(capture), config, logged("308.01"), nullptr, ExactLimits{});
    ASSERT_EQ(row.error, "");
    ASSERT_EQ(row.buffers.size(), 1U);
    const PredictBuffer& cpu = row.buffers.front();
    EXPECT_EQ(cpu.buffer_type, "CPU");
    EXPECT_NEAR(static_cast<double>(cpu.bytes) / (1024.0 * 1024.0), 308.01, 0.005);
    EXPECT_EQ(cpu.replayed, cpu.bytes);  // the capture conforms (ctest real_size_captures)
    EXPECT_EQ(cpu.log_mib, "308.01");
    EXPECT_EQ(cpu.largest_live.rfind("kq-0 (MUL_MAT, 256.00 MiB)", 0), 0U) << cpu.largest_live;
    EXPECT_NE(cpu.set_at.find("kq-0"), std::string::npos) << cpu.set_at;
    // A bound is a bound: no plan of the same blocks needs less, and ggml's is one of them.
    EXPECT_LE(cpu.lower_bound, cpu.best_plan);
    EXPECT_LE(cpu.best_plan, cpu.bytes);
    // 512 MiB of KV, 0.49 MiB of output, the compute buffer and the weights, as llama.cpp counted them.
    const std::size_t output = LlamaLogSize{"CPU", "output", "0.49"}.approximate_bytes();
    EXPECT_EQ(row.total_bytes(), 4517937152U + 512U * 1024 * 1024 + output + cpu.bytes);
    EXPECT_EQ(row.largest_part(), "weights");
    // docs/real-models.md: ggml's 308.01 MiB is 1.055 times the bound there, 292.01 MiB, and the exact
    // search meets the bound: 16 MiB over both, 16 / 292.01 = 5.48 %, which the text rounds up.
    EXPECT_EQ(row.over_bound_text(), "+16.00 MiB (5.5 %)");
    EXPECT_EQ(row.over_best_text(), "+16.00 MiB (5.5 %) (optimum)");
}

// With flash attention no kq matrix exists: the logits set the buffer, 128,256 vocabulary entries x
// 512 tokens x 4 bytes = 250.50 MiB (result_output), as the committed capture's llama.cpp logged 266.50 MiB.
TEST(PredictReport, WithFlashAttentionTheLogitsSetTheBuffer) {
    const Capture capture = load_capture(fs::path(GALLOCSIM_TEST_DATA_DIR) / "captures" / "llama-3.1-8b-c4096-u512-fa");
    const PredictConfig config{4096, 512, 512, "on", "f16", 0, 1};
    const PredictRow row = predict_row(only_session(capture), config, logged("266.50"), nullptr, ExactLimits{});
    ASSERT_EQ(row.error, "");
    ASSERT_EQ(row.buffers.size(), 1U);
    EXPECT_NEAR(static_cast<double>(row.buffers.front().bytes) / (1024.0 * 1024.0), 266.50, 0.005);
    EXPECT_EQ(row.buffers.front().largest_live.rfind("result_output (MUL_MAT, 250.50 MiB)", 0), 0U)
        << row.buffers.front().largest_live;
}

// Vulkan_Host allocates 32 bytes more than asked for each of its buffers (the capture's README,
// tests/data/captures/vulkan-llama-chunked): predict counts what llama.cpp allocated, and gallocsim's
// plan of the same graph is that less 32 bytes a chunk.
TEST(PredictReport, ABufferTypesExtraBytesAreCountedAndExplained) {
    const Capture capture = load_capture(fs::path(GALLOCSIM_TEST_DATA_DIR) / "captures" / "vulkan-llama-chunked");
    const PredictConfig config{64, 64, 64, "off", "f16", 1, 1};
    const PredictRow row = predict_row(only_session(capture), config, LlamaAnswer{}, nullptr, ExactLimits{});
    ASSERT_EQ(row.error, "");
    ASSERT_EQ(row.buffers.size(), 2U);
    EXPECT_EQ(row.buffers[0].buffer_type, "Vulkan0");
    EXPECT_EQ(row.buffers[0].extra, 0U);
    EXPECT_EQ(row.buffers[0].replayed, row.buffers[0].bytes);
    EXPECT_EQ(row.buffers[1].buffer_type, "Vulkan_Host");
    EXPECT_GT(row.buffers[1].extra, 0U);
    EXPECT_EQ(row.buffers[1].extra % 32, 0U);
    EXPECT_EQ(row.buffers[1].replayed + row.buffers[1].extra, row.buffers[1].bytes);
}

// Every context the search tries, given an oracle "fits up to N tokens".
std::set<std::size_t> tried_until_done(ContextSearch& search, std::size_t fits_up_to) {
    std::set<std::size_t> tried;
    while (const auto ctx = search.next()) {
        EXPECT_TRUE(tried.insert(*ctx).second) << "tried twice: " << *ctx;
        search.record(*ctx, *ctx <= fits_up_to);
        if (tried.size() > 64) {
            ADD_FAILURE() << "the search does not end";
            break;
        }
    }
    return tried;
}

TEST(PredictReport, ContextSearchFindsTheLargestMultipleOfTheGranularityThatFits) {
    // Fits up to 41,800 tokens: the largest multiple of 256 at or below it is 163 x 256 = 41,728.
    ContextSearch search(4096, 131072, 256);
    const std::set<std::size_t> tried = tried_until_done(search, 41800);
    EXPECT_EQ(search.best(), 41728U);
    EXPECT_FALSE(search.reached_most());
    // Doubling from 4096: 4096, 8192, 16384, 32768 fit, 65536 does not.
    for (const std::size_t ctx : {4096U, 8192U, 16384U, 32768U, 65536U}) {
        EXPECT_TRUE(tried.contains(ctx)) << ctx;
    }
    // Then bisection over (32768, 65536): 128 multiples of 256, so about log2(128) = 7 more tries.
    EXPECT_LE(tried.size(), 5U + 8U);
}

TEST(PredictReport, ContextSearchStopsAtTheLargestAllowedContext) {
    ContextSearch search(4096, 8192, 256);
    tried_until_done(search, 1'000'000);
    EXPECT_EQ(search.best(), 8192U);
    EXPECT_TRUE(search.reached_most());
}

TEST(PredictReport, ContextSearchBelowTheStart) {
    // Not even 4096 fits, 1000 tokens do: 3 x 256 = 768 is the answer.
    ContextSearch search(4096, 131072, 256);
    tried_until_done(search, 1000);
    EXPECT_EQ(search.best(), 768U);
    // Nothing fits: no context.
    ContextSearch none(4096, 131072, 256);
    tried_until_done(none, 100);
    EXPECT_EQ(none.best(), 0U);
}

TEST(PredictReport, ByteSizesAsTyped) {
    EXPECT_EQ(parse_byte_size("24GiB"), std::size_t{24} << 30);
    EXPECT_EQ(parse_byte_size("512mib"), std::size_t{512} << 20);
    EXPECT_EQ(parse_byte_size("1.5GB"), std::size_t{1'500'000'000});
    EXPECT_EQ(parse_byte_size("1000"), std::size_t{1000});
    EXPECT_EQ(parse_byte_size("lots"), std::nullopt);
    EXPECT_EQ(parse_byte_size("12 parsecs"), std::nullopt);
    EXPECT_EQ(parse_byte_size(""), std::nullopt);
}

TEST(PredictReport, LlamaCppLogLinesAsBytes) {
    // 308.01 MiB is 308 x 1,048,576 = 322,961,408 plus 0.01 x 1,048,576 = 10,485.76: 322,971,893.76 bytes, rounded.
    EXPECT_EQ((LlamaLogSize{"CPU", "compute", "308.01"}.approximate_bytes()), 322971894U);
    const LlamaAnswer answer = logged("1.00");
    EXPECT_EQ(answer.bytes_of("KV"), 512U << 20);
    EXPECT_EQ(answer.compute_mib("CPU"), "1.00");
    EXPECT_EQ(answer.compute_mib("CUDA0"), "");
}

} // namespace
} // namespace gallocsim
