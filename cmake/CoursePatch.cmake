# course_apply_patch(<out_dir> FROM <source_dir> PATCH <file.patch> NAME <what>
#                    [FILES <name>...])
#
# At configure time: copies the named files (default: every file) of
# <source_dir> (a lesson's solution) into <out_dir> in the build folder and
# applies <file.patch>, a unified diff against them (`--- a/vecadd.cu`). The
# source tree is never written. A patch that no longer applies (because the
# solution changed under it) stops the configure, naming <what> and the patch,
# with patch's own words. Editing the patch or the solution re-configures.
find_program(COURSE_PATCH_PROGRAM patch)

function(course_apply_patch out_dir)
  cmake_parse_arguments(PARSE_ARGV 1 P "" "FROM;PATCH;NAME" "FILES")
  if(NOT COURSE_PATCH_PROGRAM)
    message(FATAL_ERROR "${P_NAME}: GNU patch is needed to build the known-wrong versions and cheats: "
                        "apt-get install patch")
  endif()
  if(NOT EXISTS "${P_PATCH}")
    message(FATAL_ERROR "${P_NAME}: ${P_PATCH} does not exist")
  endif()
  if(P_FILES)
    set(files ${P_FILES})
  else()
    file(GLOB files RELATIVE "${P_FROM}" "${P_FROM}/*")
  endif()
  file(REMOVE_RECURSE "${out_dir}")
  file(MAKE_DIRECTORY "${out_dir}")
  foreach(f IN LISTS files)
    file(COPY "${P_FROM}/${f}" DESTINATION "${out_dir}")
  endforeach()
  if(NOT CMAKE_SCRIPT_MODE_FILE)  # a configure, not the test script
    list(TRANSFORM files PREPEND "${P_FROM}/")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${files} "${P_PATCH}")
  endif()
  execute_process(
    COMMAND "${COURSE_PATCH_PROGRAM}" -p1 --batch --forward --no-backup-if-mismatch --reject-file=-
            -d "${out_dir}" -i "${P_PATCH}"
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${P_NAME}: ${P_PATCH} no longer applies to ${P_FROM} (the solution changed "
                        "under it?); update the patch:\n${output}")
  endif()
endfunction()
