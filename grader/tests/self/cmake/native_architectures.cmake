# Tests course_native_architectures (cmake/CourseNativeArchitectures.cmake):
# what it makes of nvidia-smi's compute_cap lines. A stand-in nvidia-smi, a
# shell script first on PATH, prints each case's lines; no GPU is needed.
#   cmake -DWORK_DIR=<a folder of its own> -P native_architectures.cmake
cmake_minimum_required(VERSION 3.24)
if(NOT WORK_DIR)
  message(FATAL_ERROR "usage: cmake -DWORK_DIR=DIR -P native_architectures.cmake")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/../../../../cmake/CourseNativeArchitectures.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(ENV{PATH} "${WORK_DIR}:$ENV{PATH}")

# expect(<what nvidia-smi prints> <its exit status> <the list expected>)
function(expect printed status expected)
  file(WRITE ${WORK_DIR}/nvidia-smi "#!/bin/sh\nprintf '${printed}'\nexit ${status}\n")
  file(CHMOD ${WORK_DIR}/nvidia-smi PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  course_native_architectures(got)
  if(NOT got STREQUAL expected)
    message(SEND_ERROR "nvidia-smi printing '${printed}' (exit ${status}): got '${got}', expected '${expected}'")
  else()
    message(STATUS "ok: '${printed}' -> '${got}'")
  endif()
endfunction()

expect("9.0\\n" 0 "90-real")                       # one H100 or H200
expect("9.0\\n9.0\\n9.0\\n9.0\\n" 0 "90-real")       # four of them: one entry
expect("8.6\\n9.0\\n" 0 "86-real;90-real")          # two kinds of GPU
expect("12.0\\n" 0 "120-real")                      # Blackwell: two digits of major
expect("7.5" 0 "75-real")                           # no newline at the end
expect("[N/A]\\n" 0 "")                             # a driver that does not know compute_cap
expect("9.0\\n[N/A]\\n" 0 "")                       # half known: none trusted
expect("" 0 "")                                     # no GPU listed
expect("No devices were found\\n" 6 "")             # nvidia-smi failed
