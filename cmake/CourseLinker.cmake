# The linker. Editing one line of an exercise and grading it rebuilds one
# object, the exercise's library and the test program, and GNU ld's link of
# that program (gtest, the CUDA runtime, debug info) was a fifth of the
# build: 0.26 s, against 0.07 s for LLVM's lld and 0.11 s for gold, on the
# course's 2-core CI machine. So the course links with lld where the compiler
# can use it, else gold, else the system's default. -DCOURSE_LINKER=default
# keeps the default; a CMAKE_LINKER_TYPE of your own (CMake 3.29 or newer)
# wins. Only C++ links are changed: nvcc does not take -fuse-ld.
set(COURSE_LINKER "auto" CACHE STRING "Linker for the course's programs: auto (lld, else gold, else the default), lld, gold or default")
set_property(CACHE COURSE_LINKER PROPERTY STRINGS auto lld gold default)

if(NOT CMAKE_LINKER_TYPE AND NOT COURSE_LINKER STREQUAL "default")
  include(CheckLinkerFlag)
  if(COURSE_LINKER STREQUAL "auto")
    set(_course_linkers lld gold)
  else()
    set(_course_linkers ${COURSE_LINKER})
  endif()
  foreach(_linker IN LISTS _course_linkers)
    check_linker_flag(CXX "-fuse-ld=${_linker}" COURSE_CXX_LINKS_WITH_${_linker})
    if(COURSE_CXX_LINKS_WITH_${_linker})
      add_link_options("$<$<LINK_LANGUAGE:CXX>:-fuse-ld=${_linker}>")
      message(STATUS "Linking the course's C++ programs with ${_linker}")
      break()
    endif()
  endforeach()
  if(NOT COURSE_LINKER STREQUAL "auto" AND NOT COURSE_CXX_LINKS_WITH_${COURSE_LINKER})
    message(FATAL_ERROR "COURSE_LINKER=${COURSE_LINKER}, but ${CMAKE_CXX_COMPILER} cannot link with -fuse-ld=${COURSE_LINKER}. "
                        "Install it (Debian/Ubuntu: lld, or binutils for gold) or configure with -DCOURSE_LINKER=auto.")
  endif()
endif()
