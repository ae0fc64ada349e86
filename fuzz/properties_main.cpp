// The property suite's main: GoogleTest, with the suite's default rapidcheck budget.
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
    // rapidcheck reads RC_PARAMS once, at its first use. Without one, each property runs
    // GALLOCSIM_PROPERTY_CASES cases (see fuzz/README.md); RC_PARAMS overrides all of it.
    setenv("RC_PARAMS", "max_success=" GALLOCSIM_PROPERTY_CASES, /*overwrite=*/0);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
