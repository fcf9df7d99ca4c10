// Reading a class's submissions (submissions.hpp) from real folders and zips
// in a temporary folder: one folder per student, GitHub Classroom clones, a
// Gradescope export (zipped and unpacked), and the bad inputs a batch must
// survive: missing, extra, large, duplicate and linked files, zips that
// would unpack to too much or out of their folder.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "batch/submissions.hpp"
#include "batch_test_files.hpp"
#include "checkout/context.hpp"
#include "course/temp_dir.hpp"

namespace grader {
namespace {

using batch_test::has_line;
using batch_test::make_zip;
using batch_test::snapshot;
using batch_test::write;
namespace fs = std::filesystem;

submission_rules vecadd_rules() {
    submission_rules rules;
    rules.lesson_id = "lesson01";
    rules.lesson_dir = "01_vecadd";
    rules.exercise_files = {"vecadd.cu"};
    return rules;
}

submission_rules streams_rules() {
    submission_rules rules;
    rules.lesson_id = "lesson05";
    rules.lesson_dir = "05_streams";
    rules.exercise_files = {"events.cu", "pipeline.cu"};
    return rules;
}

const submission& find(const submission_set& set, const std::string& student) {
    for (const auto& s : set.submissions)
        if (s.student == student) return s;
    ADD_FAILURE() << "no submission for " << student;
    static const submission none;
    return none;
}

std::vector<std::string> students(const submission_set& set) {
    std::vector<std::string> names;
    for (const auto& s : set.submissions) names.push_back(s.student);
    return names;
}

// The message of the user_error that reading `input` throws ("" when none).
std::string error_reading(const fs::path& input, const submission_rules& rules = vecadd_rules()) {
    try {
        read_submissions(input, rules);
    } catch (const user_error& e) {
        return e.what();
    }
    return "";
}

// --- one folder per student ------------------------------------------------

TEST(BatchSubmissions, FindsExerciseFilesAnywhereInAStudentsFolderByName) {
    course::temp_dir in("batch-sub");
    write(in / "alice/vecadd.cu", "// alice");
    write(in / "bob/src/deep/vecadd.cu", "// bob");
    const auto set = read_submissions(in.path(), vecadd_rules());
    EXPECT_EQ(set.kind, submissions_kind::student_folders);
    ASSERT_EQ(students(set), (std::vector<std::string>{"alice", "bob"}));
    EXPECT_EQ(find(set, "alice").files.at("vecadd.cu"), "// alice");
    EXPECT_EQ(find(set, "bob").files.at("vecadd.cu"), "// bob");
    EXPECT_TRUE(find(set, "alice").problems.empty());
    EXPECT_TRUE(find(set, "bob").problems.empty());
}

TEST(BatchSubmissions, AMissingFileIsGradedAsTheSkeletonAndSaysSo) {
    course::temp_dir in("batch-sub");
    write(in / "carol/notes.txt", "I ran out of time");
    const auto set = read_submissions(in.path(), vecadd_rules());
    const auto& carol = find(set, "carol");
    EXPECT_TRUE(carol.files.empty());
    EXPECT_TRUE(has_line(carol.problems, "missing vecadd.cu: graded as the untouched skeleton would be"));
    EXPECT_TRUE(has_line(carol.problems, "ignored 1 file that is not part of lesson01: notes.txt"));
}

TEST(BatchSubmissions, OneLineWhenEveryFileOfALessonIsMissing) {
    course::temp_dir in("batch-sub");
    fs::create_directories(in / "dan");
    write(in / "erin/pipeline.cu", "// erin");
    const auto set = read_submissions(in.path(), streams_rules());
    EXPECT_EQ(find(set, "dan").problems,
              (std::vector<std::string>{"missing every lesson05 file (events.cu, pipeline.cu): graded as the "
                                        "untouched skeleton would be"}));
    EXPECT_EQ(find(set, "erin").files.size(), 1u);
    EXPECT_EQ(find(set, "erin").problems,
              (std::vector<std::string>{"missing events.cu: graded as the untouched skeleton would be"}));
}

TEST(BatchSubmissions, FilesThatAreNotTheLessonsAreCountedAndTheFirstFewNamed) {
    course::temp_dir in("batch-sub");
    write(in / "fay/vecadd.cu", "// fay");
    for (const char* extra : {"a.out", "main.cpp", "notes.txt", "x/1.txt", "x/2.txt", "x/3.txt", "x/4.txt"})
        write(in / "fay" / extra, "x");
    const auto set = read_submissions(in.path(), vecadd_rules());
    EXPECT_EQ(find(set, "fay").problems,
              (std::vector<std::string>{"ignored 7 files that are not part of lesson01: a.out, main.cpp, notes.txt, "
                                        "x/1.txt, x/2.txt and 2 more"}));
    EXPECT_EQ(find(set, "fay").files.at("vecadd.cu"), "// fay");
}

TEST(BatchSubmissions, AFileOverTheSizeLimitIsNotUsed) {
    course::temp_dir in("batch-sub");
    write(in / "gus/vecadd.cu", std::string(3'100'000, 'x'));
    const auto set = read_submissions(in.path(), vecadd_rules());
    const auto& gus = find(set, "gus");
    EXPECT_TRUE(gus.files.empty());
    EXPECT_TRUE(has_line(gus.problems, "vecadd.cu is 3.1 MB, over the 1 MB limit: not used; vecadd.cu is graded "
                                       "as the untouched skeleton would be"));
}

TEST(BatchSubmissions, OfTwoFilesWithOneNameTheShallowestThenTheFirstIsUsed) {
    course::temp_dir in("batch-sub");
    write(in / "hal/b/vecadd.cu", "// b");
    write(in / "hal/a/vecadd.cu", "// a");
    write(in / "ida/deep/er/vecadd.cu", "// deeper");
    write(in / "ida/vecadd.cu", "// top");
    const auto set = read_submissions(in.path(), vecadd_rules());
    EXPECT_EQ(find(set, "hal").files.at("vecadd.cu"), "// a");
    EXPECT_EQ(find(set, "hal").problems,
              (std::vector<std::string>{"two files named vecadd.cu (a/vecadd.cu, b/vecadd.cu): used a/vecadd.cu"}));
    EXPECT_EQ(find(set, "ida").files.at("vecadd.cu"), "// top");
    EXPECT_TRUE(has_line(find(set, "ida").problems, "used vecadd.cu"));
}

TEST(BatchSubmissions, SymbolicLinksAreNeverFollowed) {
    course::temp_dir in("batch-sub");
    write(in / "jo/vecadd.cu", "// jo's own work");
    fs::create_directories(in / "kim");
    fs::create_symlink("../jo/vecadd.cu", in / "kim/vecadd.cu");  // another student's file
    fs::create_directories(in / "lee");
    fs::create_directory_symlink("../jo", in / "lee/borrowed");
    const auto set = read_submissions(in.path(), vecadd_rules());
    EXPECT_TRUE(find(set, "kim").files.empty());
    EXPECT_TRUE(has_line(find(set, "kim").problems, "vecadd.cu is a symbolic link: not followed, not used"));
    EXPECT_TRUE(find(set, "lee").files.empty()) << "a linked folder is not entered";
    EXPECT_TRUE(has_line(find(set, "lee").problems, "missing vecadd.cu"));
}

TEST(BatchSubmissions, AFifoIsNotReadSoItCannotHangTheBatch) {
    course::temp_dir in("batch-sub");
    fs::create_directories(in / "max");
    ASSERT_EQ(::mkfifo((in / "max/vecadd.cu").c_str(), 0644), 0);
    const auto set = read_submissions(in.path(), vecadd_rules());
    EXPECT_TRUE(has_line(find(set, "max").problems, "vecadd.cu is not a regular file: not used"));
}

TEST(BatchSubmissions, GitHistoryAndMacOsLeftoversAreNotReported) {
    course::temp_dir in("batch-sub");
    write(in / "ned/vecadd.cu", "// ned");
    write(in / "ned/.git/objects/ab/cdef", "blob");
    write(in / "ned/.git/vecadd.cu", "not the submission");
    write(in / "ned/__MACOSX/._vecadd.cu", "resource fork");
    write(in / "ned/.DS_Store", "finder");
    write(in / "olga/vecadd.cu", "// olga: not a clone, so the folder is not taken for Classroom clones");
    const auto set = read_submissions(in.path(), vecadd_rules());
    EXPECT_EQ(find(set, "ned").files.at("vecadd.cu"), "// ned");
    EXPECT_TRUE(find(set, "ned").problems.empty()) << find(set, "ned").problems.front();
}

TEST(BatchSubmissions, SortedByStudentAndNothingIsWrittenIntoTheInput) {
    course::temp_dir in("batch-sub");
    for (const char* who : {"zoe", "amy", "Mia", "bea"}) write(in / who / "vecadd.cu", who);
    write(in / "README.txt", "the TA's notes");
    const auto before = snapshot(in.path());
    const auto set = read_submissions(in.path(), vecadd_rules());
    EXPECT_EQ(students(set), (std::vector<std::string>{"Mia", "amy", "bea", "zoe"}));
    EXPECT_TRUE(has_line(set.notes, "ignored 1 file at the top of"));
    EXPECT_TRUE(has_line(set.notes, "README.txt"));
    EXPECT_EQ(snapshot(in.path()), before);
}

TEST(BatchSubmissions, AStudentsOwnMetadataFileDoesNotTurnTheClassIntoAnExport) {
    course::temp_dir in("batch-sub");
    write(in / "mallory/submission_metadata.yml", "submission_1:\n  :submitters:\n  - :name: Someone Else\n");
    write(in / "mallory/vecadd.cu", "// mallory");
    write(in / "nina/vecadd.cu", "// nina");
    EXPECT_EQ(detect_submissions_kind(in.path()), submissions_kind::student_folders);
    EXPECT_EQ(students(read_submissions(in.path(), vecadd_rules())), (std::vector<std::string>{"mallory", "nina"}));
}

// --- SUBMISSIONS as a whole -------------------------------------------------

TEST(BatchSubmissions, AMissingInputSaysWhatSubmissionsShouldBe) {
    const std::string error = error_reading("/no/such/submissions");
    EXPECT_NE(error.find("/no/such/submissions does not exist"), std::string::npos) << error;
    EXPECT_NE(error.find("one subfolder per student"), std::string::npos) << error;
}

TEST(BatchSubmissions, AFileThatIsNotAZipIsRefused) {
    course::temp_dir in("batch-sub");
    write(in / "grades.zip", "not a zip at all");
    const std::string error = error_reading(in / "grades.zip");
    EXPECT_NE(error.find("is neither a folder nor a zip file"), std::string::npos) << error;
    EXPECT_NE(error.find("Gradescope's Export Submissions"), std::string::npos) << error;
}

TEST(BatchSubmissions, AFolderWithoutSubfoldersHoldsNoSubmissions) {
    course::temp_dir in("batch-sub");
    write(in / "vecadd.cu", "// one student's file, not a folder of them");
    const std::string error = error_reading(in.path());
    EXPECT_NE(error.find("holds no submissions (no subfolders)"), std::string::npos) << error;
}

// --- GitHub Classroom -------------------------------------------------------

// A student's clone of the course template, with their work in it.
void make_clone(const fs::path& clone, const std::string& work) {
    write(clone / ".git/HEAD", "ref: refs/heads/main\n");
    write(clone / ".git/objects/12/3456", "blob");
    write(clone / "README.md", "# course");
    write(clone / "lessons/01_vecadd/README.md", "lesson text");
    write(clone / "exercises/02_doublify/doublify.cu", "// another lesson");
    write(clone / "exercises/01_vecadd/vecadd.cu", work);
}

TEST(BatchSubmissions, ClassroomClonesAreNamedByUserAndReadFromTheExerciseFolder) {
    course::temp_dir in("batch-sub");
    make_clone(in / "lab1-vecadd-ada", "// ada");
    make_clone(in / "lab1-vecadd-alan", "// alan");
    write(in / "lab1-vecadd-alan/scratch/vecadd.cu", "// an old attempt outside the exercise folder");
    EXPECT_EQ(detect_submissions_kind(in.path()), submissions_kind::classroom_clones);
    const auto set = read_submissions(in.path(), vecadd_rules());
    EXPECT_EQ(set.kind, submissions_kind::classroom_clones);
    ASSERT_EQ(students(set), (std::vector<std::string>{"ada", "alan"}));
    EXPECT_EQ(find(set, "ada").origin, "lab1-vecadd-ada");
    EXPECT_EQ(find(set, "ada").files.at("vecadd.cu"), "// ada");
    EXPECT_EQ(find(set, "alan").files.at("vecadd.cu"), "// alan");
    EXPECT_TRUE(find(set, "ada").problems.empty()) << "the course template is not 'extra files'";
    EXPECT_TRUE(find(set, "alan").problems.empty());
}

TEST(BatchSubmissions, ClassroomPrefixStopsAtADashSoUserNamesStayWhole) {
    course::temp_dir in("batch-sub");
    make_clone(in / "hw-al", "// al");
    make_clone(in / "hw-alan", "// alan");
    EXPECT_EQ(students(read_submissions(in.path(), vecadd_rules())), (std::vector<std::string>{"al", "alan"}));
}

TEST(BatchSubmissions, ASingleClassroomCloneKeepsItsWholeName) {
    course::temp_dir in("batch-sub");
    make_clone(in / "lab1-vecadd-ada", "// ada");
    EXPECT_EQ(students(read_submissions(in.path(), vecadd_rules())), (std::vector<std::string>{"lab1-vecadd-ada"}));
}

TEST(BatchSubmissions, AClassroomCloneWithoutTheExerciseFolderIsMatchedByName) {
    course::temp_dir in("batch-sub");
    make_clone(in / "lab1-bo", "// bo");
    write(in / "lab1-cy/.git/HEAD", "ref: refs/heads/main\n");
    write(in / "lab1-cy/vecadd.cu", "// cy, at the top of the repository");
    const auto set = read_submissions(in.path(), vecadd_rules());
    const auto& cy = find(set, "cy");
    EXPECT_EQ(cy.files.at("vecadd.cu"), "// cy, at the top of the repository");
    EXPECT_TRUE(has_line(cy.problems, "no exercises/01_vecadd/ in the clone: files matched by name anywhere in it"));
}

// --- Gradescope's export -----------------------------------------------------

const char* metadata_yml = R"(submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1815'
    :email: ada@example.edu
  :created_at: 2025-01-31 23:59:00.000000000 -08:00
  :score: 0.0
  :history: []
submission_102:
  :submitters:
  - :name: Alan Turing
    :sid: 1912
    :email: alan@example.edu
  - :name: Grace Hopper
    :sid: 1906
    :email: grace@example.edu
  :created_at: 2025-01-30 10:00:00.000000000 -08:00
submission_103:
  :submitters:
  - :name: Charles Babbage
    :sid: ~
    :email: charles@example.edu
)";

std::vector<batch_test::zip_item> export_items(const std::string& top = "assignment_42_export/") {
    return {{top + "submission_metadata.yml", metadata_yml},
            {top + "submission_101/vecadd.cu", "// ada"},
            {top + "submission_102/src/vecadd.cu", "// alan and grace"},
            {top + "submission_102/README.md", "our notes"},
            {top + "submission_103/notes.txt", "nothing yet"}};
}

bool can_read_exports() {
    return can_read_zip() && can_read_gradescope_metadata() && batch_test::can_make_zips();
}
#define SKIP_WITHOUT_EXPORTS()                                                                          \
    if (!can_read_exports())                                                                            \
    GTEST_SKIP() << "built without libarchive-dev or libyaml-cpp-dev: Gradescope exports cannot be read "

void expect_the_export_read_right(const submission_set& set) {
    EXPECT_EQ(set.kind, submissions_kind::gradescope_export);
    ASSERT_EQ(students(set), (std::vector<std::string>{"Ada Lovelace", "Alan Turing + Grace Hopper", "Charles Babbage"}));
    const auto& ada = find(set, "Ada Lovelace");
    EXPECT_EQ(ada.origin, "submission_101");
    EXPECT_EQ(ada.files.at("vecadd.cu"), "// ada");
    ASSERT_EQ(ada.submitters.size(), 1u);
    EXPECT_EQ(ada.submitters[0].email, "ada@example.edu");
    EXPECT_EQ(ada.submitters[0].sid, "1815");
    EXPECT_TRUE(ada.problems.empty());
    const auto& group = find(set, "Alan Turing + Grace Hopper");
    EXPECT_EQ(group.files.at("vecadd.cu"), "// alan and grace");
    ASSERT_EQ(group.submitters.size(), 2u);
    EXPECT_EQ(group.submitters[1].sid, "1906");
    EXPECT_TRUE(has_line(group.problems, "ignored 1 file that is not part of lesson01: README.md"));
    const auto& charles = find(set, "Charles Babbage");
    EXPECT_EQ(charles.submitters[0].sid, "") << "a null sid is empty, not '~'";
    EXPECT_TRUE(has_line(charles.problems, "missing vecadd.cu: graded as the untouched skeleton would be"));
}

TEST(BatchSubmissions, AGradescopeExportZipNamesTheSubmitters) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    make_zip(in / "export.zip", export_items());
    const auto before = snapshot(in.path());
    EXPECT_EQ(detect_submissions_kind(in / "export.zip"), submissions_kind::gradescope_export);
    expect_the_export_read_right(read_submissions(in / "export.zip", vecadd_rules()));
    EXPECT_EQ(snapshot(in.path()), before) << "a zip is read, never unpacked";
}

TEST(BatchSubmissions, AnUnpackedGradescopeExportReadsTheSame) {
    if (!can_read_gradescope_metadata())
        GTEST_SKIP() << "built without libyaml-cpp-dev: Gradescope's metadata cannot be read";
    course::temp_dir in("batch-sub");
    for (const auto& item : export_items()) write(in / "unpacked" / item.path, item.content);
    EXPECT_EQ(detect_submissions_kind(in / "unpacked"), submissions_kind::gradescope_export);
    expect_the_export_read_right(read_submissions(in / "unpacked", vecadd_rules()));
    expect_the_export_read_right(read_submissions(in / "unpacked/assignment_42_export", vecadd_rules()));
}

TEST(BatchSubmissions, AnExportWithoutATopFolderReadsTheSame) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    make_zip(in / "export.zip", export_items(""));
    expect_the_export_read_right(read_submissions(in / "export.zip", vecadd_rules()));
}

TEST(BatchSubmissions, GradescopeSubmittersWithOneNameAreToldApartByFolder) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    make_zip(in / "export.zip",
             {{"e/submission_metadata.yml",
               "submission_1:\n  :submitters:\n  - :name: Sam Lee\nsubmission_2:\n  :submitters:\n  - :name: Sam Lee\n"},
              {"e/submission_1/vecadd.cu", "// one"},
              {"e/submission_2/vecadd.cu", "// two"}});
    const auto set = read_submissions(in / "export.zip", vecadd_rules());
    EXPECT_EQ(students(set), (std::vector<std::string>{"Sam Lee (submission_1)", "Sam Lee (submission_2)"}));
}

TEST(BatchSubmissions, FoldersAndMetadataThatDisagreeAreBothKept) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    make_zip(in / "export.zip",
             {{"e/submission_metadata.yml", "submission_1:\n  :submitters:\n  - :name: Listed Only\n"},
              {"e/submission_9/vecadd.cu", "// unlisted"},
              {"e/stray.txt", "left by someone"}});
    const auto set = read_submissions(in / "export.zip", vecadd_rules());
    EXPECT_TRUE(has_line(find(set, "Listed Only").problems, "lists submission_1, but the export has no such folder"));
    EXPECT_EQ(find(set, "submission_9").files.at("vecadd.cu"), "// unlisted");
    EXPECT_TRUE(has_line(find(set, "submission_9").problems, "submission_9 is not in submission_metadata.yml"));
    EXPECT_TRUE(has_line(set.notes, "stray.txt"));
}

TEST(BatchSubmissions, ZipEntriesLeadingOutOfTheirFolderAreRefusedUnread) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    auto items = export_items("e/");
    items.push_back({"e/submission_101/../../../escaped.txt", "would land outside"});
    items.push_back({"e/submission_103/../../vecadd.cu", "// would overwrite the skeleton"});
    items.push_back({"../vecadd.cu", "// outside everything"});
    make_zip(in / "export.zip", items);
    const auto before = snapshot(in.path());
    const auto set = read_submissions(in / "export.zip", vecadd_rules());
    EXPECT_TRUE(has_line(find(set, "Ada Lovelace").problems,
                         "refused 1 zip entry leading outside the submission: ../../../escaped.txt"));
    const auto& charles = find(set, "Charles Babbage");
    EXPECT_TRUE(charles.files.empty());
    EXPECT_TRUE(has_line(charles.problems, "../../vecadd.cu leads outside its submission folder: refused"));
    EXPECT_TRUE(has_line(set.notes, "ignored 1 zip entry outside the export's folder"));
    EXPECT_EQ(snapshot(in.path()), before);
    EXPECT_FALSE(fs::exists(in.path().parent_path() / "escaped.txt"));
}

TEST(BatchSubmissions, AZipFileOverTheFileLimitIsNotUsed) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    auto items = export_items("e/");
    items[1].content = std::string(500, 'x');  // Ada's vecadd.cu
    make_zip(in / "export.zip", items);
    auto rules = vecadd_rules();
    rules.limits.max_file_bytes = 100;
    const auto set = read_submissions(in / "export.zip", rules);
    EXPECT_TRUE(find(set, "Ada Lovelace").files.empty());
    EXPECT_TRUE(has_line(find(set, "Ada Lovelace").problems,
                         "vecadd.cu is 500 bytes, over the 100 bytes limit: not used"));
}

TEST(BatchSubmissions, ASubmissionThatWouldUnpackToTooMuchIsNotUsedAndTheRestIs) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    auto items = export_items("e/");
    items.push_back({"e/submission_102/build/a.out", std::string(5000, '\0')});
    make_zip(in / "export.zip", items);
    auto rules = vecadd_rules();
    rules.limits.max_submission_bytes = 1000;
    const auto set = read_submissions(in / "export.zip", rules);
    const auto& group = find(set, "Alan Turing + Grace Hopper");
    EXPECT_TRUE(group.files.empty());
    EXPECT_TRUE(has_line(group.problems, "submission_102 would unpack to 5 kB, over the 1 kB limit for one "
                                         "submission: none of its files used; graded as the untouched skeleton "
                                         "would be"));
    EXPECT_EQ(find(set, "Ada Lovelace").files.at("vecadd.cu"), "// ada") << "one bad submission stops nothing";
}

TEST(BatchSubmissions, AZipThatWouldUnpackToTooMuchIsRefusedWhole) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    auto items = export_items("e/");
    for (int i = 0; i < 3; ++i) items.push_back({fmt::format("e/submission_101/junk{}.bin", i), std::string(5000, 'j')});
    make_zip(in / "export.zip", items);
    auto rules = vecadd_rules();
    rules.limits.max_zip_bytes = 10'000;
    const std::string error = error_reading(in / "export.zip", rules);
    EXPECT_NE(error.find("would unpack to more than 10 kB (the limit): not read"), std::string::npos) << error;
    EXPECT_NE(error.find("unzip it yourself"), std::string::npos) << error;
}

TEST(BatchSubmissions, AZipWithTooManyEntriesIsRefusedWhole) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    auto items = export_items("e/");
    for (int i = 0; i < 10; ++i) items.push_back({fmt::format("e/submission_101/f{}.txt", i), "x"});
    make_zip(in / "export.zip", items);
    auto rules = vecadd_rules();
    rules.limits.max_zip_entries = 8;
    const std::string error = error_reading(in / "export.zip", rules);
    EXPECT_NE(error.find("holds more than 8 entries (the limit): not read"), std::string::npos) << error;
}

TEST(BatchSubmissions, AZipWithoutMetadataIsNotAGradescopeExport) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    make_zip(in / "some.zip", {{"alice/vecadd.cu", "// alice"}});
    const std::string error = error_reading(in / "some.zip");
    EXPECT_NE(error.find("is not a Gradescope export: it has no submission_metadata.yml"), std::string::npos) << error;
    EXPECT_NE(error.find("Export Submissions"), std::string::npos) << error;
}

TEST(BatchSubmissions, MetadataThatIsNotYamlSaysHowToGetAGoodExport) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    make_zip(in / "export.zip", {{"e/submission_metadata.yml", "submission_1: [unclosed"}});
    const std::string error = error_reading(in / "export.zip");
    EXPECT_NE(error.find("submission_metadata.yml is not valid YAML"), std::string::npos) << error;
    EXPECT_NE(error.find("Export Submissions"), std::string::npos) << error;
}

TEST(BatchSubmissions, ATruncatedZipIsADamagedInputNotACrash) {
    SKIP_WITHOUT_EXPORTS();
    course::temp_dir in("batch-sub");
    make_zip(in / "export.zip", export_items());
    const std::string whole = batch_test::read(in / "export.zip");
    write(in / "cut.zip", whole.substr(0, whole.size() / 2));
    const std::string error = error_reading(in / "cut.zip");
    EXPECT_NE(error.find("cannot read the zip"), std::string::npos) << error;
    EXPECT_NE(error.find("download it again"), std::string::npos) << error;
}

TEST(BatchSubmissions, WithoutItsLibrariesAnExportSaysWhichPackageToInstall) {
    std::string why;
    if (can_read_zip(&why) && can_read_gradescope_metadata(&why))
        GTEST_SKIP() << "built with libarchive and yaml-cpp: the message for their absence cannot show here";
    course::temp_dir in("batch-sub");
    write(in / "export.zip", std::string("PK\x03\x04", 4) + "rest");
    const std::string error = error_reading(in / "export.zip");
    EXPECT_TRUE(error.find("libarchive-dev") != std::string::npos || error.find("libyaml-cpp-dev") != std::string::npos)
        << error;
}

}  // namespace
}  // namespace grader
