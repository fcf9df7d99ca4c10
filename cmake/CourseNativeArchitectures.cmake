# course_native_architectures(<out>): the architectures of this machine's
# GPUs as CMAKE_CUDA_ARCHITECTURES entries ("90-real" on an H100 or H200:
# machine code for that GPU alone, which is what nvcc's -arch=native gives),
# or nothing where nvidia-smi cannot say (no GPU, a driver too old for
# compute_cap, a line that is not "major.minor").
#
# Why: passed on as it is, "native" makes nvcc ask the driver for the GPU on
# every compile, 0.24 s of each compile on the H200 machine (lesson01's .cu
# compiles in 0.95 s with sm_90 named, 1.13 to 1.24 s with -arch=native): a
# quarter of the build in the student's edit-and-grade loop. The top-level
# CMakeLists.txt asks once, at configure time.
function(course_native_architectures out)
  execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                  RESULT_VARIABLE rc OUTPUT_VARIABLE caps ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(archs "")
  if(rc EQUAL 0)
    string(REPLACE "\n" ";" caps "${caps}")
    foreach(cap IN LISTS caps)
      string(STRIP "${cap}" cap)
      if(NOT cap MATCHES "^([0-9]+)\\.([0-9])$")
        set(archs "")  # a line that is not "major.minor": trust none of it
        break()
      endif()
      list(APPEND archs "${CMAKE_MATCH_1}${CMAKE_MATCH_2}-real")
    endforeach()
    list(REMOVE_DUPLICATES archs)
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()
