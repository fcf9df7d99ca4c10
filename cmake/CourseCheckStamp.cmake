# cmake -DSOURCE=<file> -DSTAMP=<file> -P CourseCheckStamp.cmake
# Fails unless STAMP holds the SHA-256 of SOURCE: a file made from SOURCE (the
# student edition's compiled textbook kernels) was made from today's version.
file(SHA256 ${SOURCE} _now)
file(READ ${STAMP} _recorded)
string(STRIP "${_recorded}" _recorded)
if(NOT _now STREQUAL _recorded)
  message(FATAL_ERROR "${SOURCE} has changed since the file made from it was made "
                      "(recorded SHA-256 ${_recorded}, now ${_now}): run "
                      "grader/tests/07_matmul/make_textbook_fatbin.sh and commit what it writes")
endif()
message(STATUS "up to date: ${SOURCE} (SHA-256 ${_now})")
