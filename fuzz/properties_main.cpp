// The property suite's main: GoogleTest, with the suite's default rapidcheck budget, and the
// exact command that runs a failed property again on the same cases.
#include <gtest/gtest.h>
#include <rapidcheck/detail/Configuration.h>

#include <cstdlib>
#include <iostream>
#include <string>

namespace {

// After a failed test, the line that reproduces it: every run draws a new seed (each property's
// cases follow from it and the property's name), so the seed and budget of this run, with the
// test alone, replay the same cases and the same shrinking. rapidcheck's own
// RC_PARAMS="reproduce=..." (printed at exit) replays the shrunk case alone.
class ReproduceLine : public testing::EmptyTestEventListener {
public:
    explicit ReproduceLine(std::string program) : program_(std::move(program)) {}

    void OnTestEnd(const testing::TestInfo& test) override {
        if (!test.result()->Failed()) {
            return;
        }
        const rc::detail::TestParams& params = rc::detail::configuration().testParams;
        std::cout << "to run " << test.test_suite_name() << "." << test.name() << " again on the same cases: RC_PARAMS=\"max_success="
                  << params.maxSuccess << " max_size=" << params.maxSize << " seed=" << params.seed << "\" " << program_
                  << " --gtest_filter=" << test.test_suite_name() << "." << test.name() << std::endl;
    }

private:
    std::string program_;
};

} // namespace

int main(int argc, char** argv) {
    // rapidcheck reads RC_PARAMS once, at its first use. Without one, each property runs
    // GALLOCSIM_PROPERTY_CASES cases (see fuzz/README.md); RC_PARAMS overrides all of it.
    setenv("RC_PARAMS", "max_success=" GALLOCSIM_PROPERTY_CASES, /*overwrite=*/0);
    ::testing::InitGoogleTest(&argc, argv);
    testing::UnitTest::GetInstance()->listeners().Append(new ReproduceLine(argc > 0 ? argv[0] : "property_tests"));
    return RUN_ALL_TESTS();
}
