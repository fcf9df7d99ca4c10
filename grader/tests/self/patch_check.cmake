# Applies a good or a broken patch with course_apply_patch, as a configure
# would: cmake -DWORK=<empty folder> -DWHICH=good|broken -P patch_check.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../../cmake/CoursePatch.cmake)
file(WRITE ${WORK}/solution/kernel.cu "int answer() {\n    return 42;\n}\n")
file(WRITE ${WORK}/good.patch
  "--- a/kernel.cu\n+++ b/kernel.cu\n@@ -1,3 +1,3 @@\n int answer() {\n-    return 42;\n+    return 41;\n }\n")
file(WRITE ${WORK}/broken.patch
  "--- a/kernel.cu\n+++ b/kernel.cu\n@@ -1,3 +1,3 @@\n int answer() {\n-    return 7;\n+    return 41;\n }\n")
course_apply_patch(${WORK}/out FROM ${WORK}/solution PATCH ${WORK}/${WHICH}.patch NAME "lesson99 cheat demo")
file(READ ${WORK}/out/kernel.cu patched)
file(READ ${WORK}/solution/kernel.cu original)
if(NOT patched MATCHES "return 41" OR NOT original MATCHES "return 42")
  message(FATAL_ERROR "the patch was not applied to the copy alone")
endif()
message(STATUS "patched copy: ok")
