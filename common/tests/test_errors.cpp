#include <gtest/gtest.h>

#include "course/device_info.hpp"
#include "course/driver_error.hpp"
#include "course/cuda_error.hpp"
#include "course/invalid_argument.hpp"
#include "course/testing/harness.hpp"

// The error path needs no GPU: a failing status is handed straight to the check.
TEST(Errors, RuntimeCheckThrowsWithNameCallAndPlace) {
    try {
        CUDA_CHECK(cudaErrorInvalidConfiguration);
        FAIL() << "CUDA_CHECK did not throw";
    } catch (const course::cuda_error& e) {
        EXPECT_EQ(e.api(), "runtime");
        EXPECT_EQ(e.code(), static_cast<int>(cudaErrorInvalidConfiguration));
        EXPECT_EQ(e.code_name(), "cudaErrorInvalidConfiguration");
        EXPECT_EQ(e.file(), "test_errors.cpp");  // the file, not the machine's path
        EXPECT_EQ(e.call(), "cudaErrorInvalidConfiguration");
        const std::string what = e.what();
        EXPECT_NE(what.find("test_errors.cpp:"), std::string::npos) << what;
        EXPECT_NE(what.find("cudaErrorInvalidConfiguration: invalid configuration argument"),
                  std::string::npos)
            << what;
    }
}

// For headers kept free of <stdexcept> (lesson07's check_shapes): the
// message as printf formats it, long ones whole.
TEST(Errors, InvalidArgumentCarriesThePrintfMessage) {
    try {
        course::throw_invalid_argument("%s: A is %zu x %zu", "matmul_tiled", std::size_t{3}, std::size_t{4});
        FAIL() << "throw_invalid_argument did not throw";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "matmul_tiled: A is 3 x 4");
    }
    const std::string long_name(1000, 'x');
    try {
        course::throw_invalid_argument("%s!", long_name.c_str());
        FAIL() << "throw_invalid_argument did not throw";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), long_name + "!");
    }
}

TEST(Errors, SuccessDoesNotThrow) { EXPECT_NO_THROW(CUDA_CHECK(cudaSuccess)); }

TEST(Errors, DriverCheckThrowsEvenWithoutADriver) {
    // With no driver the name cannot be looked up; the code and call remain.
    try {
        CU_CHECK(CUDA_ERROR_INVALID_VALUE);
        FAIL() << "CU_CHECK did not throw";
    } catch (const course::cuda_error& e) {
        EXPECT_EQ(e.api(), "driver");
        EXPECT_EQ(e.code(), static_cast<int>(CUDA_ERROR_INVALID_VALUE));
        EXPECT_EQ(e.call(), "CUDA_ERROR_INVALID_VALUE");
        EXPECT_FALSE(e.code_name().empty());
    }
}

TEST(Errors, TodoThrowsNotImplemented) {
    EXPECT_THROW(course::todo("lesson01::vecadd"), course::not_implemented);
    try {
        course::todo("lesson01::vecadd");
    } catch (const course::not_implemented& e) {
        EXPECT_STREQ(e.what(), "not implemented yet: lesson01::vecadd");
    }
}

TEST(Errors, TodoAddsItsLineToTheFileItNames) {
    try {
        course::todo("lesson01::vecadd in exercises/01_vecadd/vecadd.cu");
    } catch (const course::not_implemented& e) {
        EXPECT_EQ(std::string(e.what()),
                  "not implemented yet: lesson01::vecadd in exercises/01_vecadd/vecadd.cu:" + std::to_string(__LINE__ - 3));
    }
}

TEST(DeviceInfo, AbsenceAlwaysComesWithAReason) {
    const auto& status = course::device_status();
    if (status.available) {
        EXPECT_GT(status.count, 0);
        EXPECT_TRUE(status.reason.empty());
    } else {
        EXPECT_NE(status.reason.find("cudaGetDeviceCount"), std::string::npos) << status.reason;
    }
}

TEST(DeviceInfo, PeakBandwidthFromClockAndBus) {
    course::device_properties d;
    d.memory_clock_khz = 2'619'000;  // an H200's attribute values
    d.memory_bus_bits = 6144;
    EXPECT_NEAR(d.peak_bandwidth_gbps(), 4022.8, 0.1);
    d.major = 9;
    d.name = "NVIDIA H200";
    EXPECT_EQ(d.summary(), "NVIDIA H200 (sm_90)");
}

TEST(DeviceInfo, VersionString) {
    EXPECT_EQ(course::cuda_version_string(13000), "13.0");
    EXPECT_EQ(course::cuda_version_string(12080), "12.8");
}

// A sticky error's name picks the words: a misaligned access is not an
// out-of-bounds one, and a name with no known cause gets none.
TEST(StickyError, NameChoosesTheCause) {
    using course::testing::sticky_error_meaning;
    EXPECT_NE(sticky_error_meaning("cudaErrorMisalignedAddress").find("not aligned"), std::string::npos);
    EXPECT_EQ(sticky_error_meaning("cudaErrorMisalignedAddress").find("does not own"), std::string::npos);
    EXPECT_NE(sticky_error_meaning("cudaErrorIllegalAddress").find("does not own"), std::string::npos);
    EXPECT_EQ(sticky_error_meaning("cudaErrorLaunchFailure"), "a kernel failed");
}
