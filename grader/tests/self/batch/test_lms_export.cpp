// Grades back to students (lms_export.hpp, roster.hpp): Canvas's gradebook
// import shape, Moodle's CSV, a feedback file per student, and the roster that
// names students in the LMS, read as real CSV, a student it leaves out named.
#include <gtest/gtest.h>

#include <stdexcept>

#include "batch/lms_export.hpp"
#include "batch/roster.hpp"
#include "batch_test_files.hpp"
#include "course/temp_dir.hpp"
#include "system/user_error.hpp"

namespace grader {
namespace {

namespace fs = std::filesystem;

lesson_report report_scoring(int single, int partial) {
    lesson_report r;
    r.lesson_id = "lesson01";
    r.title = "vector addition";
    r.variant = "exercise";
    graded_test a{"VecAdd.SingleElement", "single element", 1};
    a.status = single ? test_status::passed : test_status::failed;
    graded_test b{"VecAdd.PartialLastBlock", "129 elements", 2};
    b.status = partial ? test_status::passed : test_status::failed;
    if (!partial) b.messages = {"the last, partial block did not run"};
    r.tests = {a, b};
    return r;
}

batch_result graded(const std::string& student, int single, int partial) {
    batch_result r;
    r.student = student;
    r.report = report_scoring(single, partial);
    return r;
}

batch_result did_not_compile(const std::string& student) {
    batch_result r = graded(student, 0, 0);
    r.build_failed = true;
    r.build_error = "vecadd.cu:12: error: expected ';'\n";
    return r;
}

batch_result lost(const std::string& student) {
    batch_result r;
    r.student = student;
    r.not_graded = "the worker on node3 stopped answering";
    return r;
}

std::vector<std::string> lines_of(const std::string& csv) {
    std::vector<std::string> lines;
    for (std::size_t start = 0; start < csv.size();) {
        const auto end = csv.find("\r\n", start);
        lines.push_back(csv.substr(start, end - start));
        start = end == std::string::npos ? csv.size() : end + 2;
    }
    return lines;
}

TEST(Csv, ReadsQuotedFieldsDoubledQuotesLineBreaksAndAByteOrderMark) {
    const auto records = parse_csv("\xEF\xBB\xBF" "folder,id,name\r\n"
                                   "ada,ada@uni.example,\"Lovelace, Ada\"\r\n"
                                   "\n"
                                   "bob,bob@uni.example,\"Bob \"\"The Builder\"\"\nSmith\"\n"
                                   "cy,,\n");
    ASSERT_EQ(records.size(), 4u) << "the blank line is no record";
    EXPECT_EQ(records[0], (std::vector<std::string>{"folder", "id", "name"}));
    EXPECT_EQ(records[1], (std::vector<std::string>{"ada", "ada@uni.example", "Lovelace, Ada"}));
    EXPECT_EQ(records[2][2], "Bob \"The Builder\"\nSmith");
    EXPECT_EQ(records[3], (std::vector<std::string>{"cy", "", ""}));
    EXPECT_THROW(parse_csv("a,\"open\n"), std::invalid_argument);
    EXPECT_THROW(parse_csv("a,\"closed\"x\n"), std::invalid_argument);
}

TEST(Roster, ColumnsByNameInAnyOrderAndCase) {
    const roster r = parse_roster("Section,ID,Folder,Name,comment\n"
                                  "01,ada@uni.example,ada,\"Lovelace, Ada\",first\n"
                                  "02,bob@uni.example,bob,,\n",
                                  "roster.csv");
    ASSERT_EQ(r.entries.size(), 2u);
    const roster_entry* ada = r.find("ada");
    ASSERT_NE(ada, nullptr);
    EXPECT_EQ(ada->id, "ada@uni.example");
    EXPECT_EQ(ada->name, "Lovelace, Ada");
    EXPECT_EQ(ada->section, "01");
    EXPECT_EQ(r.find("cy"), nullptr);
}

void refused(const std::string& text, const std::string& words) {
    try {
        parse_roster(text, "roster.csv");
        ADD_FAILURE() << "accepted:\n" << text;
    } catch (const user_error& e) {
        EXPECT_EQ(e.code, usage_error);
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("folder,id,name,section"), std::string::npos) << e.what();
    }
}

TEST(Roster, AMistakeIsAUsageErrorNamingTheRow) {
    refused("student,email\nada,ada@uni.example\n", "no column 'folder'");
    refused("folder,name\nada,Ada\n", "no column 'id'");
    refused("folder,id\nada,\n", "row 2 (ada) has no id");
    refused("folder,id\nada,a@x\nada,b@x\n", "row 3: folder 'ada' is named twice");
    refused("folder,id\nada,a@x\nbob,a@x\n", "row 3: id 'a@x' is given to both 'ada' and 'bob'");
    refused("folder,id\nada,\"a@x\n", "never closed");
    refused("", "it is empty");
}

TEST(LmsExport, TheCanvasCsvHasCanvassImportHeaderThenPointsPossible) {
    const std::vector<batch_result> results = {graded("bob", 1, 0), graded("ada", 1, 1)};
    const auto students = lms_students(results, nullptr);
    const auto lines = lines_of(format_canvas_csv(students, "lesson01 (12345)", 3));
    ASSERT_EQ(lines.size(), 4u);
    // Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then the assignment.
    EXPECT_EQ(lines[0], "Student,ID,SIS User ID,SIS Login ID,Section,lesson01 (12345)");
    EXPECT_EQ(lines[1], "    Points Possible,,,,,3");
    EXPECT_EQ(lines[2], "ada,,,ada,,3") << "without a roster the folder is the login";
    EXPECT_EQ(lines[3], "bob,,,bob,,1");
}

TEST(LmsExport, WithoutARosterAGradescopeSubmitterIsNamedByEmailAndSid) {
    batch_result r = graded("submission_1", 1, 1);
    r.email = "ada@uni.example";
    r.sid = "S123";
    const std::vector<batch_result> results = {r};
    const auto lines = lines_of(format_canvas_csv(lms_students(results, nullptr), "lesson01", 3));
    EXPECT_EQ(lines.at(2), "submission_1,,S123,ada@uni.example,,3");
}

TEST(LmsExport, OneTotalPerStudentNotGradedLeftEmptyABuildFailureZero) {
    const std::vector<batch_result> results = {graded("ada", 1, 0), did_not_compile("bob"), lost("cy")};
    const auto students = lms_students(results, nullptr);
    const auto canvas = lines_of(format_canvas_csv(students, "lesson01", 3));
    EXPECT_EQ(canvas.at(2), "ada,,,ada,,1");
    EXPECT_EQ(canvas.at(3), "bob,,,bob,,0");
    EXPECT_EQ(canvas.at(4), "cy,,,cy,,") << "an import leaves a not-graded student's grade alone";
    const auto moodle = lines_of(format_moodle_csv(students, "lesson01", 3));
    EXPECT_EQ(moodle.at(0), "Username,Full name,lesson01,Feedback,Note");
    EXPECT_EQ(moodle.at(1),
              "ada,ada,1,1 of 3 points; points lost in VecAdd.PartialLastBlock; the feedback file says why.,");
    EXPECT_EQ(moodle.at(2), "bob,bob,0,\"0 of 3 points: the code did not compile, so no tests ran.\",");
    EXPECT_NE(moodle.at(3).find("cy,cy,,not graded: the worker on node3 stopped answering"), std::string::npos)
        << moodle.at(3);
}

TEST(LmsExport, ARosterNamesStudentsAndAStudentItLeavesOutIsNamedNotDropped) {
    course::temp_dir dir("lms-export");
    const roster r = parse_roster("folder,id,name,section\n"
                                  "ada,ada@uni.example,\"Lovelace, Ada\",Section 01\n"
                                  "bob,bob@uni.example,\"Babbage, Charles\",Section 02\n"
                                  "dee,dee@uni.example,Dee,Section 01\n",
                                  "roster.csv");
    const std::vector<batch_result> results = {graded("ada", 1, 1), graded("bob", 1, 0), graded("zed", 0, 0)};
    const lms_outputs written = write_lms_outputs(dir.path(), "lesson01", "vector addition", results, {r, ""});
    EXPECT_EQ(written.not_in_roster, std::vector<std::string>{"zed"});
    EXPECT_EQ(written.without_submission, std::vector<std::string>{"dee"});

    const auto canvas = lines_of(batch_test::read(written.canvas));
    ASSERT_EQ(canvas.size(), 5u) << "every student has a row, the one missing from the roster too";
    EXPECT_EQ(canvas[2], "\"Lovelace, Ada\",,,ada@uni.example,Section 01,3");
    EXPECT_EQ(canvas[3], "\"Babbage, Charles\",,,bob@uni.example,Section 02,1");
    EXPECT_EQ(canvas[4], "zed (not in the roster),,,zed,,0");

    const auto moodle = lines_of(batch_test::read(written.moodle));
    EXPECT_EQ(moodle[0], "Username,Full name,lesson01,Feedback,Note") << "zed's folder name is no e-mail address";
    EXPECT_NE(moodle[3].find("zed,zed,0,"), std::string::npos) << moodle[3];
    EXPECT_NE(moodle[3].find("not in the roster"), std::string::npos) << moodle[3];
}

TEST(LmsExport, MoodleNamesItsIdentifierColumnEmailWhereEveryIdIsOne) {
    const roster r = parse_roster("folder,id\nada,ada@uni.example\n", "roster.csv");
    const std::vector<batch_result> results = {graded("ada", 1, 1)};
    const auto moodle = lines_of(format_moodle_csv(lms_students(results, &r), "Lesson 1", 3));
    EXPECT_EQ(moodle.at(0), "Email address,Full name,Lesson 1,Feedback,Note");
    EXPECT_EQ(moodle.at(1), "ada@uni.example,ada,3,3 of 3 points.,");
}

TEST(LmsExport, AFeedbackFilePerStudentInTextAndHtml) {
    course::temp_dir dir("lms-export");
    const roster r = parse_roster("folder,id,name\nada,ada@uni.example,<b>Ada</b>\n", "roster.csv");
    const std::vector<batch_result> results = {graded("ada", 1, 0), did_not_compile("bob"), lost("cy")};
    fs::create_directories(dir.path() / "feedback");
    batch_test::write(dir.path() / "feedback/someone-else.txt", "an earlier class's");
    const lms_outputs written = write_lms_outputs(dir.path(), "lesson01", "vector addition", results, {r, ""});

    for (const char* name : {"ada@uni.example", "bob", "cy"})
        for (const char* ext : {".txt", ".html"})
            EXPECT_TRUE(fs::is_regular_file(written.feedback / (std::string(name) + ext))) << name << ext;
    EXPECT_FALSE(fs::exists(written.feedback / "someone-else.txt")) << "the folder holds this class alone";

    const std::string ada = batch_test::read(written.feedback / "ada@uni.example.txt");
    EXPECT_EQ(ada.rfind("lesson01 · vector addition: feedback for <b>Ada</b> (ada@uni.example)\n1 of 3 points\n", 0), 0u)
        << ada;
    EXPECT_NE(ada.find("VecAdd.PartialLastBlock"), std::string::npos) << ada;
    const std::string html = batch_test::read(written.feedback / "ada@uni.example.html");
    EXPECT_NE(html.find("<!DOCTYPE html>"), std::string::npos);
    EXPECT_EQ(html.find("<b>Ada</b>"), std::string::npos) << "names are escaped";
    EXPECT_NE(html.find("&lt;b&gt;Ada&lt;/b&gt;"), std::string::npos);
    EXPECT_NE(html.find("<code>VecAdd.PartialLastBlock</code>"), std::string::npos);
    EXPECT_EQ(html.find("src=\"http"), std::string::npos) << "self-contained";

    EXPECT_NE(batch_test::read(written.feedback / "bob.txt").find("expected ';'"), std::string::npos)
        << "a build failure's feedback is the compiler's message";
    EXPECT_NE(batch_test::read(written.feedback / "cy.txt").find("This is not a score of zero"), std::string::npos);
}

TEST(LmsExport, TheRosterAndColumnAreKeptInTheBatchFolderForLaterRuns) {
    course::temp_dir dir("lms-export");
    const fs::path file = dir.path() / "my-roster.csv";
    batch_test::write(file, "folder,id\nada,ada@uni.example\n");
    const fs::path out = dir.path() / "out";
    EXPECT_FALSE(kept_lms_settings(out).class_roster);
    keep_lms_settings(out, file, "lesson01 (12345)");
    fs::remove(file);  // kept as a copy
    lms_settings kept = kept_lms_settings(out);
    ASSERT_TRUE(kept.class_roster);
    EXPECT_EQ(kept.class_roster->find("ada")->id, "ada@uni.example");
    EXPECT_EQ(kept.column, "lesson01 (12345)");

    keep_lms_settings(out, std::nullopt, "lesson01 (777)");  // the roster kept as it was
    kept = kept_lms_settings(out);
    EXPECT_TRUE(kept.class_roster);
    EXPECT_EQ(kept.column, "lesson01 (777)");

    batch_test::write(file, "folder,name\nada,Ada\n");
    EXPECT_THROW(keep_lms_settings(out, file, ""), user_error) << "a bad roster is refused, not kept";
    EXPECT_TRUE(kept_lms_settings(out).class_roster);
}

}  // namespace
}  // namespace grader
