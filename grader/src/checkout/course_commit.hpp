#pragma once
// Which state of the course graded a submission: part of a batch's result
// key, so that a change to the tests or the judge regrades everyone.
#include <filesystem>
#include <string>

namespace grader {

// `git rev-parse HEAD` of the course, with "+dirty-<hash of the diff>" when
// files the grading depends on (anything but exercises/) differ from it;
// "unversioned" outside git.
std::string course_commit(const std::filesystem::path& source_dir);

}  // namespace grader
