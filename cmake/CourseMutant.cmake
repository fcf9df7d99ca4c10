# course_apply_mutant(<lesson> <name>
#   PATCH        grader/mutants/NN_name/<name>/mistake.patch
#   SOLUTION_DIR solutions/NN_name
#   SOURCES      file ...          # the lesson's SOURCES
#   DESTINATION  <build>/mutants/NN_name/<name>
#   [KIND cheat|textbook])         # how errors name it: mutant (default), cheat or textbook
#
# Writes a known-wrong version into DESTINATION: the solution's SOURCES with
# the mutant's patch (a unified diff, paths a/FILE and b/FILE relative to the
# solution folder) applied by GNU patch. It runs at configure time, never
# writes into the source tree, and rewrites a file only when its text changes,
# so a re-configure does not rebuild every mutant. A patch that does not apply
# exactly (--fuzz=0: its context lines must match, though they may have
# moved) stops the configure, naming the lesson, the mutant, the patch and
# what patch said. The patch and the solution's files become configure
# dependencies: editing either re-runs this at the next build.
#
# Known cheats (grader/cheats/NN_name/<name>/cheat.patch) are made the same
# way, with KIND cheat, and so are the known-right textbook forms
# (grader/textbooks/NN_name/<name>/textbook.patch), with KIND textbook. course_add_lesson calls it for each mutant and cheat; grader/tests/self/cmake/mutant_patch.cmake
# tests it on its own (cmake -P).
function(course_apply_mutant lesson name)
  cmake_parse_arguments(PARSE_ARGV 2 M "" "PATCH;SOLUTION_DIR;DESTINATION;KIND" "SOURCES")
  if(NOT M_KIND)
    set(M_KIND mutant)
  endif()
  foreach(required PATCH SOLUTION_DIR DESTINATION SOURCES)
    if(NOT M_${required})
      message(FATAL_ERROR "course_apply_mutant(${lesson} ${name}): ${required} is missing")
    endif()
  endforeach()
  set(what "lesson ${lesson}, ${M_KIND} ${name}")
  if(NOT EXISTS ${M_PATCH})
    message(FATAL_ERROR "${what}: ${M_PATCH} does not exist")
  endif()

  find_program(COURSE_PATCH_PROGRAM patch)
  if(NOT COURSE_PATCH_PROGRAM)
    message(FATAL_ERROR
      "${what}: the program `patch` (GNU patch) was not found; the known-wrong versions "
      "are made from the solution with it. Install it (apt-get install patch) or "
      "configure with -DCOURSE_BUILD_MUTANTS=OFF.")
  endif()

  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${M_PATCH})

  # Patch a fresh copy beside the destination, then copy what changed.
  get_filename_component(parent ${M_DESTINATION} DIRECTORY)
  set(work ${parent}/.${name}.patching)
  file(REMOVE_RECURSE ${work})
  file(MAKE_DIRECTORY ${work})
  foreach(source IN LISTS M_SOURCES)
    set(from ${M_SOLUTION_DIR}/${source})
    if(NOT EXISTS ${from})
      message(FATAL_ERROR "${what}: ${from} does not exist")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${from})
    file(COPY_FILE ${from} ${work}/${source})
  endforeach()

  execute_process(
    COMMAND ${COURSE_PATCH_PROGRAM} -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch
            -d ${work} -i ${M_PATCH}
    RESULT_VARIABLE status
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    # Indented, CMake shows patch's lines as they are instead of re-wrapping them.
    string(STRIP "${output}" output)
    string(REPLACE "\n" "\n  " output "  ${output}")
    message(FATAL_ERROR
      "${what}: ${M_PATCH} does not apply to ${M_SOLUTION_DIR}.\n"
      "Most likely the solution changed where the patch changes it: make the change again in a "
      "copy of the solution and make the patch anew with diff -u (grader/${M_KIND}s/README.md). "
      "What did not apply is in ${work}.\n"
      "patch said:\n${output}")
  endif()

  # An empty patch applies too, and would make a mutant that is the solution.
  set(changed FALSE)
  foreach(source IN LISTS M_SOURCES)
    file(SHA256 ${M_SOLUTION_DIR}/${source} before)
    file(SHA256 ${work}/${source} after)
    if(NOT before STREQUAL after)
      set(changed TRUE)
    endif()
  endforeach()
  if(NOT changed)
    message(FATAL_ERROR "${what}: ${M_PATCH} changes none of the solution's files")
  endif()

  file(MAKE_DIRECTORY ${M_DESTINATION})
  foreach(source IN LISTS M_SOURCES)
    file(COPY_FILE ${work}/${source} ${M_DESTINATION}/${source} ONLY_IF_DIFFERENT)
  endforeach()
  file(REMOVE_RECURSE ${work})
endfunction()
