# cmake -DCASE=<case> -DGRADER_SRC=<grader/src> -DWORK_DIR=<scratch> -P layers_refused.cmake
# Proves that the layering check can fail: each case builds a small tree or
# project that goes upward, runs the real check on it (check_layers.cmake, or
# a configure that calls layers.cmake's link check), and passes only if the
# check refused it with a message naming the problem.
#   upward_include  grader/src/evidence/ includes "run/runner.hpp"
#   upward_table    a table in which evidence uses run
#   upward_link     a configure where grader_evidence links grader_run
cmake_minimum_required(VERSION 3.24)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(expect_refused result output expected)
  if(result EQUAL 0)
    message(FATAL_ERROR "${CASE}: the check passed a tree that goes upward:\n${output}")
  endif()
  string(FIND "${output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${CASE}: the check failed, but did not say \"${expected}\":\n${output}")
  endif()
  message(STATUS "${CASE}: refused, saying \"${expected}\"")
endfunction()

if(CASE STREQUAL "upward_include")
  file(WRITE "${WORK_DIR}/src/report/table.cpp" "#include \"system/process.hpp\"\n")
  file(WRITE "${WORK_DIR}/src/evidence/profile.cpp"
       "// a profile that wants the runner\n#include \"report/report.hpp\"\n#include \"run/runner.hpp\"\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK_DIR}/src -P ${GRADER_SRC}/check_layers.cmake
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  expect_refused("${result}" "${out}${err}" "grader/src/evidence/profile.cpp:3: evidence includes \"run/runner.hpp\"")
elseif(CASE STREQUAL "upward_table")
  file(WRITE "${WORK_DIR}/layers.cmake" "set(GRADER_USES_evidence run report system)\n")
  file(MAKE_DIRECTORY "${WORK_DIR}/src")
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK_DIR}/src -DLAYERS_FILE=${WORK_DIR}/layers.cmake
                          -P ${GRADER_SRC}/check_layers.cmake
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  expect_refused("${result}" "${out}${err}" "grader/src/evidence may not use run")
elseif(CASE STREQUAL "upward_link")
  file(WRITE "${WORK_DIR}/project/CMakeLists.txt" "
cmake_minimum_required(VERSION 3.24)
project(upward_link NONE)
include(${GRADER_SRC}/layers.cmake)
add_library(grader_run INTERFACE)
add_library(grader_evidence INTERFACE)
target_link_libraries(grader_evidence INTERFACE grader_run)
grader_link_problems(problems)
if(problems)
  message(FATAL_ERROR \"\${problems}\")
endif()
")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/project -B ${WORK_DIR}/build
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  expect_refused("${result}" "${out}${err}" "grader_evidence links grader_run")
else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()
