# course_add_lesson(<NN_name>
#   TITLE   "vector addition"      # shown by `grader list` and in reports
#   SOURCES vecadd.cu              # in exercises/<NN_name> and solutions/<NN_name>
#   TESTS   test_vecadd.cu         # in grader/tests/<NN_name>
#   [BENCH  bench_vecadd.cu]       # in grader/bench/<NN_name>
#   [LIBS   CUDA::cudart ...]      # what the implementation links
#   [ALIASES vecadd ...]           # extra names `grader run` accepts
#   [BASELINES BM_copy ...]        # benchmarks that measure a reference (a copy,
#                                  # cuBLAS, CUB), not the student's code:
#                                  # `grader bench --impl baseline` runs these
#   [WITHHELD BM_x ...]            # benchmarks whose code this edition leaves out
#                                  # (a going-further kernel that solves the
#                                  # lesson): `grader bench` says so, runs none
#   [MUTANTS name ...]             # known-wrong versions: grader/mutants/<NN_name>/<name>/mistake.patch
#   [CHEATS name ...]              # known cheats: grader/cheats/<NN_name>/<name>/cheat.patch
#   [TEXTBOOKS name ...])          # known-right textbook forms: grader/textbooks/<NN_name>/<name>/textbook.patch
#
# Creates, for lesson NN:
#   lessonNN_exercise, lessonNN_solution      the student's and the reference library
#   lessonNN_exercise_tests, ..._solution_tests  the same graded tests linked to each
#   lessonNN_exercise_bench, ..._solution_bench  Google Benchmark programs
#   lessonNN_mutant_<name>, ..._tests            with COURSE_BUILD_MUTANTS=ON, each
#   lessonNN_cheat_<name>, ..._tests             known-wrong version and cheat (CourseMutant.cmake)
#   lessonNN_textbook_<name>, ..._tests          and textbook form, which must get full marks
#   CTest entries labelled lessonNN, gpu or host, and exercise/solution/bench
# and records the lesson in build/course_manifest.json for the grader. It sets
# lessonNN_variants in the caller's scope: the variants it made libraries for
# (exercise, solution, mutant_<name>, cheat_<name>, textbook_<name>), so that
# a lesson's own settings for each (lessonNN_<variant>) need no list of their own.
include(${CMAKE_CURRENT_LIST_DIR}/CourseMutant.cmake)

# course_patched_variants(<kind> <patch file> <json file> <name>...)
# For each name: the solution with grader/<kind>s/<dir>/<name>/<patch file>
# applied (course_apply_mutant), written to <build>/<kind>s/<dir>/<name>/ with
# the json file copied beside it; appends <kind>_<name> to `variants` and sets
# variant_dir_<kind>_<name>. A macro, called only from course_add_lesson: it
# reads that function's dir, L_SOURCES and variant_dir_solution and sets its
# variables.
macro(course_patched_variants kind patch json)
  foreach(_name ${ARGN})
    set(_from ${CMAKE_SOURCE_DIR}/grader/${kind}s/${dir}/${_name})
    set(_built ${CMAKE_BINARY_DIR}/${kind}s/${dir}/${_name})
    course_apply_mutant(${dir} ${_name} KIND ${kind}
      PATCH ${_from}/${patch}
      SOLUTION_DIR ${variant_dir_solution}
      SOURCES ${L_SOURCES}
      DESTINATION ${_built})
    if(NOT EXISTS ${_from}/${json})
      message(FATAL_ERROR "lesson ${dir}, ${kind} ${_name}: ${_from}/${json} does not exist")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_from}/${json})
    file(COPY_FILE ${_from}/${json} ${_built}/${json} ONLY_IF_DIFFERENT)
    list(APPEND variants ${kind}_${_name})
    set(variant_dir_${kind}_${_name} ${_built})
  endforeach()
endmacro()

# course_instructors_only_bench(<NN_name> <source> <stand-in> <out_source> <out_withheld> ROWS BM_x ...)
# A benchmark source that answers its lesson (a going-further kernel) is the
# instructor's edition's only: .gitattributes export-ignores it, so the
# student edition (`grader release`) lacks it. Where it is missing, the
# stand-in (a file that throws, saying so) takes its place in BENCH and the
# rows are WITHHELD (`grader bench` names them and runs none); where it is
# there, it is used and nothing is withheld.
function(course_instructors_only_bench dir source standin out_source out_withheld)
  cmake_parse_arguments(PARSE_ARGV 5 A "" "" "ROWS")
  if(EXISTS ${CMAKE_SOURCE_DIR}/grader/bench/${dir}/${source})
    set(${out_source} ${source} PARENT_SCOPE)
    set(${out_withheld} "" PARENT_SCOPE)
  else()
    set(${out_source} ${standin} PARENT_SCOPE)
    set(${out_withheld} ${A_ROWS} PARENT_SCOPE)
  endif()
endfunction()

function(course_add_lesson dir)
  cmake_parse_arguments(PARSE_ARGV 1 L "" "TITLE" "SOURCES;TESTS;BENCH;LIBS;ALIASES;MUTANTS;CHEATS;TEXTBOOKS;BASELINES;WITHHELD")
  if(NOT dir MATCHES "^([0-9][0-9])_(.+)$")
    message(FATAL_ERROR "course_add_lesson: '${dir}' must look like NN_name")
  endif()
  set(nn ${CMAKE_MATCH_1})
  set(slug ${CMAKE_MATCH_2})
  set(id lesson${nn})
  math(EXPR number "${nn}")  # 01 -> 1: JSON numbers have no leading zeros
  foreach(required TITLE SOURCES TESTS)
    if(NOT L_${required})
      message(FATAL_ERROR "course_add_lesson(${dir}): ${required} is missing")
    endif()
  endforeach()

  set(lesson_dir ${CMAKE_SOURCE_DIR}/lessons/${dir})
  set(tests_dir ${CMAKE_SOURCE_DIR}/grader/tests/${dir})
  set(bench_dir ${CMAKE_SOURCE_DIR}/grader/bench/${dir})

  # One implementation library per variant: same file names, same contract.
  # The student edition (`grader release`) has no solutions: the exercise is
  # its only variant, and the grader gives a practice grade (run/grade.cpp).
  set(variants exercise)
  set(variant_dir_exercise ${CMAKE_SOURCE_DIR}/exercises/${dir})
  if(NOT COURSE_STUDENT_EDITION)
    list(APPEND variants solution)
    set(variant_dir_solution ${CMAKE_SOURCE_DIR}/solutions/${dir})
  endif()
  if(COURSE_BUILD_MUTANTS AND NOT COURSE_STUDENT_EDITION)
    # A mutant is the solution with its patch applied, written into the build
    # folder at configure time (grader/mutants/<dir>/<name>/mistake.patch). Its
    # expect.json is copied beside the sources: the manifest's source_dir for
    # a mutant is that folder, which is where `grader verify` reads expect.json.
    course_patched_variants(mutant mistake.patch expect.json ${L_MUTANTS})
    # A cheat is made the same way from grader/cheats/<dir>/<name>/cheat.patch.
    course_patched_variants(cheat cheat.patch expect.json ${L_CHEATS})
    # A textbook form (grader/textbooks/<dir>/<name>/textbook.patch) is the
    # lesson's technique written plainly, as a student who followed the text
    # would: every speed threshold must let it through. Its about.json says
    # what it is and which speed tests it answers.
    course_patched_variants(textbook textbook.patch about.json ${L_TEXTBOOKS})
  endif()

  # The graded tests compile once and link against each implementation.
  list(TRANSFORM L_TESTS PREPEND ${tests_dir}/ OUTPUT_VARIABLE test_paths)
  add_library(${id}_graded_tests OBJECT ${test_paths})
  target_include_directories(${id}_graded_tests PRIVATE ${lesson_dir})
  target_link_libraries(${id}_graded_tests PRIVATE course::testing ${L_LIBS})

  if(L_BENCH AND COURSE_BUILD_BENCHMARKS)
    list(TRANSFORM L_BENCH PREPEND ${bench_dir}/ OUTPUT_VARIABLE bench_paths)
    add_library(${id}_bench_objects OBJECT ${bench_paths})
    target_include_directories(${id}_bench_objects PRIVATE ${lesson_dir})
    target_link_libraries(${id}_bench_objects PRIVATE course::bench ${L_LIBS})
  endif()

  set(manifest_variants "")
  set(sep "")
  foreach(variant IN LISTS variants)
    set(src_dir ${variant_dir_${variant}})
    list(TRANSFORM L_SOURCES PREPEND ${src_dir}/ OUTPUT_VARIABLE impl_paths)
    add_library(${id}_${variant} STATIC ${impl_paths})
    target_include_directories(${id}_${variant} PUBLIC ${lesson_dir})
    target_link_libraries(${id}_${variant} PUBLIC course::common ${L_LIBS})
    # Line numbers for compute-sanitizer's reports, so that the grader can
    # name the student's file:line (grader/src/evidence/sanitizer.hpp). -lineinfo adds
    # line tables only: the Compute Sanitizer guide ("Compilation Options")
    # says it generates line-number information "without affecting the
    # optimization level", unlike -G, which turns device optimisation off. The
    # speed tests measure the same machine code.
    target_compile_options(${id}_${variant} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
    course_keep_device_code(${id}_${variant})
    if(variant MATCHES "^cheat_")
      # A cheat may use the harness's own headers, as a student who read them could.
      target_link_libraries(${id}_${variant} PRIVATE course::testing)
    endif()

    add_executable(${id}_${variant}_tests $<TARGET_OBJECTS:${id}_graded_tests>)
    target_link_libraries(${id}_${variant}_tests PRIVATE ${id}_${variant} course::testing_main ${L_LIBS})

    set(bench_json "")
    if(TARGET ${id}_bench_objects AND NOT variant MATCHES "^(mutant|cheat|textbook)_")
      add_executable(${id}_${variant}_bench $<TARGET_OBJECTS:${id}_bench_objects>)
      target_link_libraries(${id}_${variant}_bench PRIVATE ${id}_${variant} course::bench_main ${L_LIBS})
      set(bench_json ", \"bench_target\": \"${id}_${variant}_bench\", \"bench\": \"$<TARGET_FILE:${id}_${variant}_bench>\"")
    endif()

    string(APPEND manifest_variants
      "${sep}\n        \"${variant}\": {\"source_dir\": \"${src_dir}\", \"tests_target\": \"${id}_${variant}_tests\", \"tests\": \"$<TARGET_FILE:${id}_${variant}_tests>\", \"library\": \"$<TARGET_FILE:${id}_${variant}>\"${bench_json}}")
    set(sep ",")
  endforeach()

  # CTest: the reference must always pass; the skeleton's entries carry the
  # `exercise` label so the everyday test command can leave them out (an
  # unfinished exercise is supposed to fail). Host-only graded tests live in
  # suites named ...Host (GRADED_HOST_TEST), which is how they get the `host`
  # label; a GPU test that skips for want of a GPU is reported as skipped.
  set(tested_variants exercise)
  if(NOT COURSE_STUDENT_EDITION)
    list(APPEND tested_variants solution)
  endif()
  foreach(variant IN LISTS tested_variants)
    foreach(kind gpu host)
      if(kind STREQUAL "host")
        set(filter "*Host.*")
      else()
        set(filter "-*Host.*")
      endif()
      course_discover_gtests(${id}_${variant}_tests
        PREFIX "${id}.${variant}." FILTER "${filter}" LIST ${id}_${variant}_${kind}_tests
        LABELS ${id} ${kind} ${variant})
    endforeach()
  endforeach()
  if(TARGET ${id}_solution_bench)
    # A short smoke run: proves the benchmark runs, measures nothing worth keeping.
    add_test(NAME ${id}.bench.solution
             COMMAND ${id}_solution_bench --benchmark_min_time=0.01)
    set_tests_properties(${id}.bench.solution PROPERTIES
      LABELS "${id};gpu;bench;solution"
      SKIP_REGULAR_EXPRESSION "SKIPPED: no CUDA device"
      TIMEOUT 600)
  endif()

  set(aliases ${slug} ${L_ALIASES})
  list(TRANSFORM aliases PREPEND "\"")
  list(TRANSFORM aliases APPEND "\"")
  list(JOIN aliases ", " aliases_json)
  list(TRANSFORM L_SOURCES PREPEND "\"" OUTPUT_VARIABLE sources_json)
  list(TRANSFORM sources_json APPEND "\"")
  list(JOIN sources_json ", " sources_json)
  list(TRANSFORM L_BASELINES PREPEND "\"" OUTPUT_VARIABLE baselines_json)
  list(TRANSFORM baselines_json APPEND "\"")
  list(JOIN baselines_json ", " baselines_json)
  list(TRANSFORM L_WITHHELD PREPEND "\"" OUTPUT_VARIABLE withheld_json)
  list(TRANSFORM withheld_json APPEND "\"")
  list(JOIN withheld_json ", " withheld_json)
  set(${id}_variants ${variants} PARENT_SCOPE)
  set_property(GLOBAL APPEND PROPERTY COURSE_MANIFEST_LESSONS
"    {
      \"id\": \"${id}\", \"number\": ${number}, \"dir\": \"${dir}\", \"slug\": \"${slug}\",
      \"title\": \"${L_TITLE}\", \"aliases\": [${aliases_json}],
      \"lesson_dir\": \"${lesson_dir}\", \"sources\": [${sources_json}],
      \"baselines\": [${baselines_json}], \"withheld\": [${withheld_json}],
      \"variants\": {${manifest_variants}
      }
    }")
endfunction()

# course_discover_gtests(<target> PREFIX <p> LIST <var> LABELS <l>... [FILTER <f>])
# Registers each GoogleTest test of <target> with CTest (found when ctest runs,
# so building needs no GPU), with every label given, a 300 s limit, and a
# GTEST_SKIP reported as skipped rather than passed.
function(course_discover_gtests target)
  cmake_parse_arguments(PARSE_ARGV 1 D "" "PREFIX;FILTER;LIST" "LABELS")
  set(filter_args "")
  if(D_FILTER)
    set(filter_args TEST_FILTER "${D_FILTER}")
  endif()
  gtest_discover_tests(${target}
    TEST_PREFIX "${D_PREFIX}"
    ${filter_args}
    TEST_LIST ${D_LIST}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    PROPERTIES
      # Neither a trailing "]" (CMake 4 quotes properties as [[...]], which it
      # would end early) nor a trailing space (CMake 3.2x drops it and misreads
      # the rest).
      SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\] ."
      TIMEOUT 300)
  # Labels are set afterwards, from the list of discovered tests:
  # gtest_discover_tests flattens a list-valued property such as LABELS "a;b"
  # into separate arguments, so it cannot set more than one label itself.
  list(JOIN D_LABELS ";" labels)
  set(label_file ${CMAKE_CURRENT_BINARY_DIR}/${D_LIST}_labels.cmake)
  file(WRITE ${label_file}
    "if(${D_LIST})\n"
    "  set_tests_properties(\${${D_LIST}} PROPERTIES LABELS \"${labels}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${label_file})
endfunction()

# Writes build/course_manifest.json: what the grader knows about this build.
function(course_write_manifest)
  get_property(lessons GLOBAL PROPERTY COURSE_MANIFEST_LESSONS)
  list(JOIN lessons ",\n" lessons_json)
  string(REPLACE ";" "," arch_json "${CMAKE_CUDA_ARCHITECTURES}")
  # The grader's GPU recorder (grader/recorder), where CUPTI let it be built.
  set(recorder "")
  if(TARGET course_gpu_recorder)
    set(recorder "$<TARGET_FILE:course_gpu_recorder>")
  endif()
  # The launcher that refuses new processes to test programs (grader/threads_only).
  set(threads_only "")
  if(TARGET course_threads_only)
    set(threads_only "$<TARGET_FILE:course_threads_only>")
  endif()
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/course_manifest.json CONTENT
"{
  \"source_dir\": \"${CMAKE_SOURCE_DIR}\",
  \"build_dir\": \"${CMAKE_BINARY_DIR}\",
  \"cmake\": \"${CMAKE_COMMAND}\",
  \"cuda_compiler\": \"${CMAKE_CUDA_COMPILER}\",
  \"cuda_compiler_version\": \"${CMAKE_CUDA_COMPILER_VERSION}\",
  \"cuda_architectures\": \"${arch_json}\",
  \"gpu_recorder\": \"${recorder}\",
  \"threads_only_launcher\": \"${threads_only}\",
  \"mutants_built\": $<IF:$<BOOL:${COURSE_BUILD_MUTANTS}>,true,false>,
  \"edition\": \"${COURSE_EDITION}\",
  \"lessons\": [
${lessons_json}
  ]
}
")
endfunction()

# course_keep_device_code(<static library target>)
# Keeps the device code nvcc makes of each CUDA source of the library, as it
# embeds it (<source>.fatbin), beside the library: lib<target>.device_code/.
# The grader hands the judge these, never the library's .nv_fatbin sections,
# which a source file could fill with machine code compiled elsewhere
# (grader/TRUST.md, item 9). nvcc's other intermediate files are removed
# once the library is built (CourseKeepFatbins.cmake).
function(course_keep_device_code target)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/lib${target}.device_code)
  file(MAKE_DIRECTORY ${dir})
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--keep --keep-dir=${dir}>)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -DDIR=${dir} -P ${CMAKE_SOURCE_DIR}/cmake/CourseKeepFatbins.cmake
    VERBATIM)
endfunction()
