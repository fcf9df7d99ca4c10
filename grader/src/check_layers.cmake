# cmake -DSOURCE_DIR=<grader/src or a copy> -P check_layers.cmake
# Checks a tree of grader stages against the rules in layers.cmake (or, with
# -DLAYERS_FILE=<file>, against another table: how the test proves that a
# table going upward is refused): the table points down, and no include
# crosses upward. Prints each problem and fails; prints the stages and passes.
cmake_minimum_required(VERSION 3.24)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<grader/src> -P check_layers.cmake")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/layers.cmake")
if(LAYERS_FILE)
  include("${LAYERS_FILE}")
endif()
grader_layer_table_problems(table_problems)
grader_include_problems("${SOURCE_DIR}" include_problems)
set(problems ${table_problems} ${include_problems})
if(problems)
  list(LENGTH problems count)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "${count} dependency problem(s) between the grader's stages:\n  ${text}")
endif()
foreach(layer IN LISTS GRADER_LAYERS)
  list(JOIN GRADER_USES_${layer} ", " uses)
  message(STATUS "grader/src/${layer} uses: ${uses}")
endforeach()
message(STATUS "every include points down")
