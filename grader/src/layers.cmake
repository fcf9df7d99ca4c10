# The grader's stages, lowest first (grader/ARCHITECTURE.md draws them).
# Each stage is the folder of that name under grader/src and one library,
# grader_<stage>. A stage uses only the stages its line names, and those must
# all come before it in GRADER_LAYERS: dependencies point one way, down.
#
# The order is the pipeline read from the bottom: the operating system's
# services; the student's checkout (build folder, manifest, building a
# lesson); the report's model and formats; the evidence tools
# (compute-sanitizer, Nsight Compute); running the graded tests isolated and
# judging them; grading a class; Slurm; the command line.
#
# This file is read by CMake at configure time (grader/src/CMakeLists.txt)
# and by the test that checks the tree (check_layers.cmake), so both hold
# the same rules.
set(GRADER_LAYERS system checkout report evidence run batch slurm cli)
set(GRADER_USES_system "")
set(GRADER_USES_checkout system)
set(GRADER_USES_report system)
set(GRADER_USES_evidence report system)
set(GRADER_USES_run evidence report checkout system)
set(GRADER_USES_batch run evidence report checkout system)
set(GRADER_USES_slurm batch run report checkout system)
set(GRADER_USES_cli slurm batch run evidence report checkout system)

# grader_layer_table_problems(<out>): a stage that uses one that is not below
# it (or no stage at all), one sentence each.
function(grader_layer_table_problems out)
  set(problems "")
  foreach(layer IN LISTS GRADER_LAYERS)
    list(FIND GRADER_LAYERS "${layer}" at)
    foreach(used IN LISTS GRADER_USES_${layer})
      list(FIND GRADER_LAYERS "${used}" used_at)
      if(used_at EQUAL -1)
        list(APPEND problems "grader/src/${layer} uses '${used}', which is not one of the stages: ${GRADER_LAYERS}")
      elseif(NOT used_at LESS at)
        list(APPEND problems
          "grader/src/${layer} may not use ${used}: ${used} is not below ${layer} (GRADER_LAYERS in grader/src/layers.cmake). Move what both need into a stage below them both")
      endif()
    endforeach()
  endforeach()
  set(${out} "${problems}" PARENT_SCOPE)
endfunction()

# grader_include_problems(<src_dir> <out>): each `#include "<stage>/..."` in
# a stage's folder that names a stage it does not use, and each include that
# climbs out of its folder ("../"), one sentence each with file and line.
function(grader_include_problems src_dir out)
  set(problems "")
  list(JOIN GRADER_LAYERS "|" any_stage)
  foreach(layer IN LISTS GRADER_LAYERS)
    set(allowed ${layer} ${GRADER_USES_${layer}})
    list(JOIN allowed ", " allowed_text)
    file(GLOB_RECURSE files RELATIVE "${src_dir}" "${src_dir}/${layer}/*.cpp" "${src_dir}/${layer}/*.hpp")
    foreach(file IN LISTS files)
      file(READ "${src_dir}/${file}" text)
      # One list item per line, so that a problem can say which line: first
      # the characters that CMake's lists treat specially go.
      string(REPLACE ";" "," text "${text}")
      string(REPLACE "\\" "/" text "${text}")
      string(REPLACE "[" "(" text "${text}")
      string(REPLACE "]" ")" text "${text}")
      string(REPLACE "\n" ";" lines "${text}")
      set(number 0)
      foreach(line IN LISTS lines)
        math(EXPR number "${number} + 1")
        if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\"")
          continue()
        endif()
        set(header "${CMAKE_MATCH_1}")
        if(header MATCHES "\\.\\./")
          list(APPEND problems "grader/src/${file}:${number}: includes \"${header}\": name a grader header by its stage's folder (\"run/runner.hpp\")")
        elseif(header MATCHES "^(${any_stage})/")
          set(stage "${CMAKE_MATCH_1}")
          if(NOT stage IN_LIST allowed)
            list(APPEND problems
              "grader/src/${file}:${number}: ${layer} includes \"${header}\", but ${layer} may use only ${allowed_text} (grader/src/layers.cmake)")
          endif()
        endif()
      endforeach()
    endforeach()
  endforeach()
  set(${out} "${problems}" PARENT_SCOPE)
endfunction()

# grader_link_problems(<out>): a stage's library that links another stage's
# library it does not use (checked once every stage is declared, so that a
# target_link_libraries added anywhere is seen).
function(grader_link_problems out)
  set(problems "")
  foreach(layer IN LISTS GRADER_LAYERS)
    if(NOT TARGET grader_${layer})
      continue()
    endif()
    get_target_property(links grader_${layer} LINK_LIBRARIES)
    get_target_property(interface grader_${layer} INTERFACE_LINK_LIBRARIES)
    foreach(link IN LISTS links interface)
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" link "${link}")
      if(link MATCHES "^grader_(.+)$" AND CMAKE_MATCH_1 IN_LIST GRADER_LAYERS)
        set(used "${CMAKE_MATCH_1}")
        if(NOT used STREQUAL layer AND NOT used IN_LIST GRADER_USES_${layer})
          list(JOIN GRADER_USES_${layer} ", " uses_text)
          list(APPEND problems "grader_${layer} links grader_${used}, but ${layer} may use only ${uses_text} (grader/src/layers.cmake)")
        endif()
      endif()
    endforeach()
  endforeach()
  set(${out} "${problems}" PARENT_SCOPE)
endfunction()
