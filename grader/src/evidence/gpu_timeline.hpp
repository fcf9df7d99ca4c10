#pragma once
// `grader run LESSON --timeline`: what the student's streams did in a timed
// test, drawn from the GPU's own record of it (course/testing/gpu_record.hpp,
// written by the grader's recorder during the test). One call is drawn, the
// one whose time on the GPU is the median of the test's calls, the same call
// lesson05's overlap grade is read from:
// - as a sketch in the terminal, one row per stream (numbered from 0 in the
//   order they first ran something) and one per engine (copies in, kernels,
//   copies out), so overlap shows as rows busy at once;
// - as a document for the course's plot script (grader/plot/course_plot.py
//   --kind timeline), which draws it as a Gantt chart.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "course/testing/gpu_record.hpp"

namespace grader {

struct gpu_timeline {
    std::string test;       // "PipelinePerf.FourStreamsOverlap"
    int call = 0;           // which call is drawn, from 1
    int calls = 0;          // of how many
    course::testing::gpu_repetition median;  // that call
};

// Every timed test's record in a run's evidence folder, by test name. A
// record that cannot be read is skipped, with a sentence in `problems`.
std::vector<gpu_timeline> read_gpu_timelines(const std::filesystem::path& evidence_dir,
                                             std::vector<std::string>& problems);

// The call as text, `width` columns of time wide.
std::string timeline_sketch(const gpu_timeline& timeline, int width = 64);

// The timelines as course_plot.py reads them ("timelines" -> runs -> entries).
nlohmann::json timeline_plot_document(const std::vector<gpu_timeline>& timelines, const std::string& lesson_id,
                                      const std::string& lesson_title, const std::string& device);

}  // namespace grader
