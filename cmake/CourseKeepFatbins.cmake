# cmake -DDIR=<folder> -P CourseKeepFatbins.cmake
# Leaves only the fat binaries (*.fatbin) in an nvcc --keep-dir folder: the
# device code of each source, which the grader hands the judge
# (cmake/CourseLesson.cmake). The other intermediate files (preprocessed
# sources, PTX, cubins, host stubs) take space and serve nobody.
file(GLOB kept LIST_DIRECTORIES false "${DIR}/*")
foreach(path IN LISTS kept)
  if(NOT path MATCHES "\\.fatbin$")
    file(REMOVE "${path}")
  endif()
endforeach()
