# Third-party libraries: the system's packages first (find_package), a pinned
# download only where a package is missing. FIND_PACKAGE_ARGS makes
# FetchContent try find_package before it fetches anything, so machines with
# the Debian/Ubuntu packages (and the offline GPU machine) never download.
include(FetchContent)

FetchContent_Declare(googletest
  URL https://github.com/google/googletest/archive/refs/tags/v1.14.0.tar.gz
  FIND_PACKAGE_ARGS NAMES GTest)
FetchContent_Declare(fmt
  URL https://github.com/fmtlib/fmt/archive/refs/tags/10.2.1.tar.gz
  FIND_PACKAGE_ARGS)
FetchContent_Declare(CLI11
  URL https://github.com/CLIUtils/CLI11/archive/refs/tags/v2.4.1.tar.gz
  FIND_PACKAGE_ARGS)
FetchContent_Declare(nlohmann_json
  URL https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz
  FIND_PACKAGE_ARGS)

set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
set(BENCHMARK_ENABLE_GTEST_TESTS OFF CACHE BOOL "" FORCE)
set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "" FORCE)

set(_course_deps googletest fmt CLI11 nlohmann_json)
if(COURSE_BUILD_BENCHMARKS)
  FetchContent_Declare(benchmark
    URL https://github.com/google/benchmark/archive/refs/tags/v1.8.3.tar.gz
    FIND_PACKAGE_ARGS)
  list(APPEND _course_deps benchmark)
endif()
FetchContent_MakeAvailable(${_course_deps})

# A fetched GoogleTest defines GTest::gtest only through its alias targets.
if(NOT TARGET GTest::gtest AND TARGET gtest)
  add_library(GTest::gtest ALIAS gtest)
endif()
