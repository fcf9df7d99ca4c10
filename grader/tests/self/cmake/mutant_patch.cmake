# Tests course_apply_mutant (cmake/CourseMutant.cmake), the configure step
# that writes each known-wrong version from the solution and its patch. No
# compiler runs: CTest calls
#   cmake -DCASE=applies|outdated|empty -DWORK_DIR=<a folder of its own> -P mutant_patch.cmake
# CASE=applies: the patch applies (its lines have moved, which is fine); the
#   copy holds the mistake and the solution is untouched.
# CASE=outdated: the solution changed under the patch; the step must fail,
#   naming the lesson, the mutant and the patch, with patch's own output.
# CASE=empty: an empty patch, which would make a mutant that is the solution;
#   the step must fail.
# The step runs in a child `cmake -P` (STEP=apply), as it would in a
# configure: a FATAL_ERROR ends that process with a non-zero status.
cmake_minimum_required(VERSION 3.24)

set(mutant_dir ${WORK_DIR}/grader/mutants/99_fixture/no_bounds_check)
set(solution_dir ${WORK_DIR}/solutions/99_fixture)
set(built_dir ${WORK_DIR}/build/mutants/99_fixture/no_bounds_check)

if(STEP STREQUAL "apply")
  include(${CMAKE_CURRENT_LIST_DIR}/../../../../cmake/CourseMutant.cmake)
  course_apply_mutant(99_fixture no_bounds_check
    PATCH ${mutant_dir}/mistake.patch
    SOLUTION_DIR ${solution_dir}
    SOURCES add.cu
    DESTINATION ${built_dir})
  return()
endif()

if(NOT CASE MATCHES "^(applies|outdated|empty)$" OR NOT WORK_DIR)
  message(FATAL_ERROR "usage: cmake -DCASE=applies|outdated|empty -DWORK_DIR=DIR -P mutant_patch.cmake")
endif()

file(REMOVE_RECURSE ${WORK_DIR})
file(WRITE ${mutant_dir}/mistake.patch
"--- a/add.cu
+++ b/add.cu
@@ -2,4 +2,4 @@
 __global__ void add(const float* a, const float* b, float* c, unsigned n) {
     const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
-    if (i < n) c[i] = a[i] + b[i];
+    c[i] = a[i] + b[i];  // MUTANT: no bounds check
 }
")
if(CASE STREQUAL "empty")
  file(WRITE ${mutant_dir}/mistake.patch "")
endif()
if(NOT CASE STREQUAL "outdated")
  # One line more at the top than when the patch was made: the hunk moves.
  set(solution
"// A solution.
// Adds two vectors.
__global__ void add(const float* a, const float* b, float* c, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
")
else()
  # The index became a size_t: a context line of the patch no longer matches
  # (patch's default, --fuzz=2, would apply it all the same).
  set(solution
"// A solution.
__global__ void add(const float* a, const float* b, float* c, unsigned n) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
")
endif()
file(WRITE ${solution_dir}/add.cu "${solution}")

execute_process(
  COMMAND ${CMAKE_COMMAND} -DSTEP=apply -DWORK_DIR=${WORK_DIR} -P ${CMAKE_CURRENT_LIST_FILE}
  RESULT_VARIABLE status
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)
message("the step said (exit status ${status}):\n${output}")

# expect(<what> <condition>...): stops with "FAILED: <what>" unless the if()
# condition holds.
function(expect what)
  if(NOT (${ARGN}))
    message(FATAL_ERROR "FAILED: ${what}")
  endif()
endfunction()

# Neither case may write into the "source tree".
file(READ ${solution_dir}/add.cu after)
string(COMPARE EQUAL "${after}" "${solution}" untouched)
expect("the solution's add.cu is unchanged" untouched)
file(GLOB solution_files RELATIVE ${solution_dir} ${solution_dir}/*)
string(COMPARE EQUAL "${solution_files}" "add.cu" alone)
expect("nothing new beside the solution's add.cu (found: ${solution_files})" alone)
file(GLOB mutant_files RELATIVE ${mutant_dir} ${mutant_dir}/*)
string(COMPARE EQUAL "${mutant_files}" "mistake.patch" alone)
expect("nothing new beside mistake.patch (found: ${mutant_files})" alone)

if(CASE STREQUAL "applies")
  string(COMPARE EQUAL "${status}" "0" ok)
  expect("the step succeeds" ok)
  file(READ ${built_dir}/add.cu built)
  string(FIND "${built}" "    c[i] = a[i] + b[i];  // MUTANT: no bounds check\n" mistake)
  string(FIND "${built}" "if (i < n)" check)
  string(FIND "${built}" "// Adds two vectors." moved)
  expect("the copy holds the mistake" mistake GREATER -1)
  expect("the copy lost the bounds check" check EQUAL -1)
  expect("the copy keeps the solution's other lines" moved GREATER -1)
  expect("the work folder is gone"
         NOT EXISTS ${WORK_DIR}/build/mutants/99_fixture/.no_bounds_check.patching)
else()
  string(COMPARE NOTEQUAL "${status}" "0" failed)
  expect("the step fails (non-zero exit status)" failed)
  if(CASE STREQUAL "empty")
    set(expected "${mutant_dir}/mistake.patch changes none of the solution's files")
  else()
    set(expected
      "${mutant_dir}/mistake.patch does not apply to ${solution_dir}"
      "patch said:"
      "FAILED")  # patch's own words: "1 out of 1 hunk FAILED"
  endif()
  # CMake wraps the message's lines: compare with the spaces and line breaks
  # made single spaces.
  string(REGEX REPLACE "[ \n]+" " " flat "${output}")
  foreach(needed "lesson 99_fixture, mutant no_bounds_check" ${expected})
    string(FIND "${flat}" "${needed}" at)
    expect("the message says \"${needed}\"" at GREATER -1)
  endforeach()
  expect("no half-made mutant is left to compile" NOT EXISTS ${built_dir}/add.cu)
endif()
message("PASSED: ${CASE}")
