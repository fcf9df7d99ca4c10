// The parser of the GPU's record (course/testing/gpu_record.hpp): what it
// attributes to each timed call, and what it refuses. The record comes from
// the student's process, so refusing is half its job.
#include <gtest/gtest.h>

#include <string>

#include "course/testing/gpu_record.hpp"

namespace {

using course::testing::gpu_activity;
using course::testing::gpu_record;
using course::testing::parse_gpu_record;

const std::string header = R"({"record":"course-gpu-record","version":1,"nonce":"abc"})"
                           "\n";

std::string api(int corr, int start) {
    return R"({"api":"cudaLaunchKernel","corr":)" + std::to_string(corr) + R"(,"start":)" + std::to_string(start) +
           R"(,"end":)" + std::to_string(start + 5) + "}\n";
}

std::string kernel(const std::string& name, int corr, int stream, int start, int end) {
    return R"({"kernel":")" + name + R"(","corr":)" + std::to_string(corr) + R"(,"stream":)" +
           std::to_string(stream) + R"(,"context":1,"start":)" + std::to_string(start) + R"(,"end":)" +
           std::to_string(end) + "}\n";
}

std::string mark(const char* what, int rep, int t) {
    return R"({"mark":")" + std::string(what) + R"(","rep":)" + std::to_string(rep) + R"(,"t":)" + std::to_string(t) +
           "}\n";
}

const std::string complete = R"({"complete":true})"
                             "\n";

gpu_record parsed(const std::string& text) {
    std::string why;
    const auto record = parse_gpu_record(text, why);
    EXPECT_TRUE(record) << why;
    return record.value_or(gpu_record{});
}

std::string refused(const std::string& text) {
    std::string why;
    const auto record = parse_gpu_record(text, why);
    EXPECT_FALSE(record);
    return why;
}

}  // namespace

TEST(GpuRecord, WorkBelongsToTheCallDuringWhichItWasLaunched) {
    // Call 0 launches kernel 7; call 1 launches kernel 9. Kernel 8 is the
    // harness's, launched between the calls.
    const auto r = parsed(header + mark("begin", 0, 100) + api(7, 110) + kernel("k", 7, 13, 150, 250) +
                          mark("end", 0, 300) + api(8, 310) + kernel("fill", 8, 14, 320, 330) +
                          mark("begin", 1, 400) + api(9, 410) + kernel("k", 9, 13, 450, 600) + mark("end", 1, 700) +
                          complete);
    ASSERT_EQ(r.repetitions.size(), 2u);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.nonce, "abc");
    EXPECT_EQ(r.repetitions[0].kernels(), 1);
    EXPECT_EQ(r.repetitions[0].span(), 100u);
    EXPECT_EQ(r.repetitions[1].span(), 150u);
    ASSERT_EQ(r.outside.size(), 1u);
    EXPECT_EQ(r.outside[0].name, "fill");
}

TEST(GpuRecord, ACallsTimeRunsOverEveryStreamFromFirstStartToLastEnd) {
    // A kernel on a stream of the call's own, still running when the call's
    // host side was done: it counts, up to its end on the GPU.
    const auto r = parsed(header + mark("begin", 0, 100) + api(1, 110) + api(2, 120) + kernel("a", 1, 13, 200, 300) +
                          kernel("b", 2, 99, 250, 900) + mark("end", 0, 950) + complete);
    ASSERT_EQ(r.repetitions.size(), 1u);
    EXPECT_EQ(r.repetitions[0].kernels(), 2);
    EXPECT_EQ(r.repetitions[0].span(), 700u);
}

TEST(GpuRecord, CopiesAndMemsetsAreWorkButNotKernels) {
    const auto r = parsed(
        header + mark("begin", 0, 100) + api(1, 110) + api(2, 120) +
        R"({"copy":"HtoD","from":"pageable","to":"device","bytes":4096,"corr":1,"stream":7,"context":1,"start":130,"end":170})"
        "\n"
        R"({"memset":"device","bytes":64,"corr":2,"stream":7,"context":1,"start":180,"end":190})"
        "\n" +
        mark("end", 0, 200) + complete);
    ASSERT_EQ(r.repetitions[0].work.size(), 2u);
    EXPECT_EQ(r.repetitions[0].kernels(), 0);
    EXPECT_EQ(r.repetitions[0].work[0].what, gpu_activity::kind::copy);
    EXPECT_EQ(r.repetitions[0].work[0].from, "pageable");
    EXPECT_EQ(r.repetitions[0].span(), 60u);
}

TEST(GpuRecord, ACallThatCausedNoWorkHasNoSpan) {
    const auto r = parsed(header + mark("begin", 0, 100) + mark("end", 0, 200) + complete);
    EXPECT_EQ(r.repetitions[0].span(), 0u);
    EXPECT_EQ(r.repetitions[0].kernels(), 0);
}

TEST(GpuRecord, WorkWhoseCallIsNotInTheRecordBelongsToNoCall) {
    const auto r = parsed(header + mark("begin", 0, 100) + kernel("k", 5, 13, 150, 160) + mark("end", 0, 200));
    EXPECT_TRUE(r.repetitions[0].work.empty());
    EXPECT_EQ(r.outside.size(), 1u);
    EXPECT_FALSE(r.complete);
}

TEST(GpuRecord, RefusesWhatNoRecorderWrites) {
    EXPECT_EQ(refused(""), "it is empty");
    EXPECT_EQ(refused(R"({"record":"something else","version":1,"nonce":"x"})"), "it does not start as a recorder's record does");
    EXPECT_EQ(refused(R"({"record":"course-gpu-record","version":2,"nonce":"x"})"),
              "it does not start as a recorder's record does");
    EXPECT_EQ(refused(header + "not json\n"), "line 2 is not a record");
    EXPECT_EQ(refused(header + R"({"surprise":1})"), "line 2 is of no kind a recorder writes");
    EXPECT_EQ(refused(header + R"({"kernel":"k","corr":1,"stream":1,"context":1,"start":9,"end":3})"),
              "line 2 is damaged GPU work");
    EXPECT_EQ(refused(header + R"({"kernel":"k","corr":-1,"stream":1,"context":1,"start":1,"end":3})"),
              "line 2 is damaged GPU work");
    EXPECT_EQ(refused(header + R"({"mark":"begin","rep":99999,"t":1})"), "line 2 is a damaged mark");
    EXPECT_EQ(refused(std::string(65 << 20, ' ')), "the record is larger than any recorder writes");
}

TEST(GpuRecord, RefusesMarksOutOfStep) {
    EXPECT_EQ(refused(header + mark("begin", 0, 1) + mark("begin", 0, 2)), "repetition 0 is marked twice");
    EXPECT_EQ(refused(header + mark("begin", 0, 1)), "the marks of repetition 0 are missing or out of order");
    EXPECT_EQ(refused(header + mark("begin", 0, 5) + mark("end", 0, 1)),
              "the marks of repetition 0 are missing or out of order");
    EXPECT_EQ(refused(header + mark("begin", 1, 1) + mark("end", 1, 2)),
              "the marks of repetition 1 are missing or out of order");
    EXPECT_EQ(refused(header + mark("begin", 0, 1) + mark("end", 0, 10) + mark("begin", 1, 5) + mark("end", 1, 20)),
              "repetition 1 begins before the one before it ends");
}

TEST(GpuRecord, KernelNamesReadAsCode) {
    EXPECT_EQ(course::testing::readable_kernel_name("_Z6vecaddPKfS0_Pfm"), "vecadd(...)");
    EXPECT_EQ(course::testing::readable_kernel_name("not_mangled"), "not_mangled");
}

// Records the grader's recorder wrote on an H200 (NVIDIA H200, CUDA 13.0,
// driver 580), during lesson01's and lesson03's timed tests: 20 calls each.
// They ship in the student edition, so the solution's kernel carries the
// skeleton's name and a one-element-a-thread grid (its times are the H200's).
namespace {

gpu_record captured(const std::string& name) {
    std::string why;
    const auto record = course::testing::read_gpu_record(std::string(COURSE_TEST_FIXTURES) + "/gpu_record/" + name, why);
    EXPECT_TRUE(record) << name << ": " << why;
    return record.value_or(gpu_record{});
}

bool from_harness(const gpu_activity& a) { return a.name.find("course_harness_") != std::string::npos; }

}  // namespace

TEST(GpuRecordCapturedOnH200, TheSolutionRunsOneKernelInEveryCall) {
    const auto r = captured("vecadd_solution_h200.gpu_record");
    ASSERT_EQ(r.repetitions.size(), 20u);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.dropped, 0u);
    for (const auto& call : r.repetitions) {
        ASSERT_EQ(call.kernels(), 1) << "call " << call.index;
        EXPECT_EQ(course::testing::readable_kernel_name(call.work[0].name),
                  "lesson01::vecadd_kernel(...)");
        // 2^27 floats in, 2^26 * 2 more: a few hundred microseconds on an H200.
        EXPECT_GT(call.span(), 100'000u);
        EXPECT_LT(call.span(), 2'000'000u);
    }
    // What ran between the calls is the harness's: fresh inputs, reading the output.
    for (const auto& a : r.outside)
        if (a.what == gpu_activity::kind::kernel) EXPECT_TRUE(from_harness(a)) << a.name;
}

TEST(GpuRecordCapturedOnH200, AMemoizedCallShowsNoWorkAtAll) {
    const auto r = captured("vecadd_memoized_h200.gpu_record");
    ASSERT_EQ(r.repetitions.size(), 20u);
    for (const auto& call : r.repetitions) {
        EXPECT_EQ(call.kernels(), 0);
        EXPECT_TRUE(call.work.empty());
        EXPECT_EQ(call.span(), 0u);
    }
}

TEST(GpuRecordCapturedOnH200, AKernelOnASideStreamIsTheCallsAndTimedInFull) {
    const auto solution = captured("vecadd_solution_h200.gpu_record");
    const auto r = captured("vecadd_side_stream_h200.gpu_record");
    ASSERT_EQ(r.repetitions.size(), 20u);
    // The harness fills its inputs on the stream it hands the call.
    std::uint32_t callers_stream = 0;
    for (const auto& a : r.outside)
        if (a.name.find("course_harness_fill_fresh") != std::string::npos) callers_stream = a.stream;
    for (const auto& call : r.repetitions) {
        ASSERT_EQ(call.kernels(), 1);
        EXPECT_NE(call.work[0].stream, callers_stream);
        EXPECT_EQ(course::testing::readable_kernel_name(call.work[0].name), "lesson01::vecadd_slow_kernel(...)");
        // Eight blocks: far slower than the solution's kernel, and timed so.
        EXPECT_GT(call.span(), 20 * solution.repetitions[call.index].span());
    }
}

TEST(GpuRecordCapturedOnH200, ADriverApiLaunchIsRecordedLikeAnyOther) {
    const auto r = captured("saxpy_driver_solution_h200.gpu_record");
    ASSERT_EQ(r.repetitions.size(), 20u);
    for (const auto& call : r.repetitions) {
        ASSERT_EQ(call.kernels(), 1);
        EXPECT_EQ(call.work[0].name, "saxpy");
    }
}

// What each call asked the GPU to do (the recorder's "op" lines), in order,
// for the judge to replay.
TEST(GpuRecord, EachCallsOpsAreKeptInOrder) {
    const std::string followed = R"({"calls_followed":true,"cupti_error":0})"
                                 "\n";
    const std::string launch =
        R"({"op":"launch","rep":0,"kernel":"_Z1kPf","grid":[4,1,1],"block":[256,1,1],"shared":0,)"
        R"("args":"0010000000000000","pointers":[[0,4096,4096,1024]]})"
        "\n";
    const std::string memset = R"({"op":"memset","rep":1,"to":[8192,8192,64],"byte":0,"bytes":64})"
                               "\n";
    const std::string copy =
        R"({"op":"copy","rep":1,"to":[8192,8192,64],"from":[77,0,0],"bytes":2,"direction":"HtoD","data":"0aff"})"
        "\n";
    const std::string odd = R"({"op":"unreplayable","rep":1,"why":"a launch of k set launch attributes"})"
                            "\n";
    const auto r = parsed(header + followed + mark("begin", 0, 100) + launch + mark("end", 0, 200) +
                          mark("begin", 1, 300) + memset + copy + odd + mark("end", 1, 400) + complete);
    EXPECT_TRUE(r.calls_followed);
    ASSERT_EQ(r.repetitions.size(), 2u);
    ASSERT_EQ(r.repetitions[0].ops.size(), 1u);
    const auto& k = r.repetitions[0].ops[0];
    EXPECT_EQ(k.what, course::testing::recorded_op::kind::launch);
    EXPECT_EQ(k.kernel, "_Z1kPf");
    EXPECT_EQ(k.grid[0], 4u);
    EXPECT_EQ(k.block[0], 256u);
    ASSERT_EQ(k.args.size(), 8u);
    EXPECT_EQ(k.args[1], 0x10);
    ASSERT_EQ(k.pointers.size(), 1u);
    EXPECT_EQ(k.pointers[0].first, 0u);
    EXPECT_TRUE(k.pointers[0].second.in_device_memory());
    ASSERT_EQ(r.repetitions[1].ops.size(), 2u);
    EXPECT_EQ(r.repetitions[1].ops[0].what, course::testing::recorded_op::kind::memset);
    EXPECT_EQ(r.repetitions[1].ops[0].bytes, 64u);
    EXPECT_EQ(r.repetitions[1].ops[1].direction, "HtoD");
    EXPECT_EQ(r.repetitions[1].ops[1].data, (std::vector<std::uint8_t>{0x0a, 0xff}));
    EXPECT_FALSE(r.repetitions[1].ops[1].from.in_device_memory());
    EXPECT_EQ(r.repetitions[1].unreplayable, std::vector<std::string>{"a launch of k set launch attributes"});
}

// lesson05's order between streams: each op's stream (a made stream's handle
// and flags; none given: the legacy default stream), events recorded and
// waited for, the host's waits; a large copy from the host without its bytes.
TEST(GpuRecord, TheOrderBetweenStreamsIsKept) {
    const std::string followed = R"({"calls_followed":true,"cupti_error":0})"
                                 "\n";
    const std::string lines[] = {
        R"({"op":"copy","rep":0,"to":[8192,8192,1048576],"from":[77,0,0],"bytes":1048576,"direction":"HtoD","stream":[4660,1]})",
        R"({"op":"event_record","rep":0,"event":51,"stream":[4660,1]})",
        R"({"op":"stream_wait","rep":0,"event":51,"stream":[2,0]})",
        R"({"op":"memset","rep":0,"to":[8192,8192,64],"byte":0,"bytes":64})",
        R"({"op":"host_wait","rep":0,"on":"stream","stream":[4660,1]})",
        R"({"op":"host_wait","rep":0,"on":"event","event":51})",
        R"({"op":"host_wait","rep":0,"on":"device"})",
    };
    std::string call = mark("begin", 0, 100);
    for (const auto& line : lines) call += line + "\n";
    const auto r = parsed(header + followed + call + mark("end", 0, 200) + complete);
    ASSERT_EQ(r.repetitions.size(), 1u);
    const auto& ops = r.repetitions[0].ops;
    using kind = course::testing::recorded_op::kind;
    using wait_on = course::testing::recorded_op::wait_on;
    ASSERT_EQ(ops.size(), 7u);
    EXPECT_EQ(ops[0].stream.id, 4660u);
    EXPECT_EQ(ops[0].stream.flags, 1u);
    EXPECT_TRUE(ops[0].data.empty());
    EXPECT_EQ(ops[1].what, kind::event_record);
    EXPECT_EQ(ops[1].event, 51u);
    EXPECT_EQ(ops[2].what, kind::stream_wait);
    EXPECT_EQ(ops[2].stream.id, course::testing::per_thread_stream_id);
    EXPECT_EQ(ops[3].stream.id, course::testing::legacy_stream_id);
    EXPECT_EQ(ops[4].what, kind::host_wait);
    EXPECT_EQ(ops[4].waits_for, wait_on::stream);
    EXPECT_EQ(ops[4].stream.id, 4660u);
    EXPECT_EQ(ops[5].waits_for, wait_on::event);
    EXPECT_EQ(ops[5].event, 51u);
    EXPECT_EQ(ops[6].waits_for, wait_on::device);

    for (const std::string bad : {
             R"({"op":"event_record","rep":0,"event":0,"stream":[1,0]})",   // no event
             R"({"op":"stream_wait","rep":0,"event":5})",                    // no stream
             R"({"op":"host_wait","rep":0,"on":"stream"})",                  // which stream?
             R"({"op":"host_wait","rep":0,"on":"everything"})",
             R"({"op":"memset","rep":0,"to":[1,1,8],"byte":0,"bytes":4,"stream":[1]})",
             R"({"op":"memset","rep":0,"to":[1,1,8],"byte":0,"bytes":4,"stream":[1,4294967296]})",
         }) {
        const std::string why = refused(header + followed + mark("begin", 0, 100) + bad + "\n" +
                                        mark("end", 0, 200) + complete);
        EXPECT_FALSE(why.empty()) << bad;
    }
}

// What the judge needs to replay honest code as it ran: the function
// attributes the program set on a kernel (more than 48 KiB of dynamic
// shared memory, a carve-out), and memory a call found as it first touched
// it (a one-pass reduction's counter), or only its size where it was too
// large to keep.
TEST(GpuRecord, AttributesAndKeptMemoryAreReadWithTheirCall) {
    const std::string followed = R"({"calls_followed":true,"cupti_error":0})"
                                 "\n";
    const std::string launch =
        R"({"op":"launch","rep":0,"kernel":"_Z1kPf","grid":[4,1,1],"block":[256,1,1],"shared":149504,)"
        R"("args":"0010000000000000","pointers":[[0,4096,4096,1024]],"max_dynamic_shared":149504,"carveout":100})"
        "\n";
    const std::string plain =
        R"({"op":"launch","rep":0,"kernel":"_Z1kPf","grid":[4,1,1],"block":[256,1,1],"shared":0,)"
        R"("args":"0010000000000000","pointers":[[0,4096,4096,1024]]})"
        "\n";
    const std::string counter = R"({"op":"kept","rep":0,"at":[4096,4096,4],"data":"00000000"})"
                                "\n";
    const std::string big = R"({"op":"kept","rep":0,"at":[65536,65536,1048576]})"
                            "\n";
    const auto r = parsed(header + followed + mark("begin", 0, 100) + counter + big + launch + plain +
                          mark("end", 0, 200) + complete);
    ASSERT_EQ(r.repetitions.size(), 1u);
    const auto& call = r.repetitions[0];
    ASSERT_EQ(call.ops.size(), 2u);
    EXPECT_EQ(call.ops[0].max_dynamic_shared_bytes, 149504u);
    EXPECT_EQ(call.ops[0].shared_carveout_percent, 100u);
    EXPECT_FALSE(call.ops[1].max_dynamic_shared_bytes.has_value());
    EXPECT_FALSE(call.ops[1].shared_carveout_percent.has_value());
    ASSERT_EQ(call.kept.size(), 2u);
    EXPECT_EQ(call.kept[0].base, 4096u);
    EXPECT_TRUE(call.kept[0].kept());
    EXPECT_EQ(call.kept[0].data, (std::vector<std::uint8_t>{0, 0, 0, 0}));
    EXPECT_EQ(call.kept[1].size, 1048576u);
    EXPECT_FALSE(call.kept[1].kept());
}

// An account of a call is refused whole when it is damaged: a pointer
// outside the arguments, bytes that are not hex, a copy's data of the wrong
// size, a call that was never marked.
TEST(GpuRecord, DamagedAccountsOfACallAreRefused) {
    const std::string call = mark("begin", 0, 100);
    const std::string end = mark("end", 0, 200) + complete;
    for (const std::string bad : {
             R"({"op":"launch","rep":0,"kernel":"k","grid":[1,1,1],"block":[1,1,1],"shared":0,"args":"00","pointers":[[8,1,1,1]]})",
             R"({"op":"launch","rep":0,"kernel":"k","grid":[1,1,1],"block":[1,1,1],"shared":0,"args":"zz","pointers":[]})",
             R"({"op":"launch","rep":0,"kernel":"k","grid":[0,1,1],"block":[1,1,1],"shared":0,"args":"","pointers":[]})",
             R"({"op":"copy","rep":0,"to":[1,1,8],"from":[2,0,0],"bytes":4,"direction":"HtoD","data":"00"})",
             R"({"op":"memset","rep":0,"to":[1,1,8],"byte":300,"bytes":4})",
             // kept memory whose bytes are not its size, or that does not start its allocation
             R"({"op":"kept","rep":0,"at":[1,1,8],"data":"00"})",
             R"({"op":"kept","rep":0,"at":[2,1,8],"data":"0000000000000000"})",
             R"({"op":"kept","rep":0,"at":[1,1,0]})",
             // an attribute that is not a number of bytes
             R"({"op":"launch","rep":0,"kernel":"k","grid":[1,1,1],"block":[1,1,1],"shared":0,"args":"","pointers":[],"max_dynamic_shared":-1})",
             R"({"op":"launch","rep":5,"kernel":"k","grid":[1,1,1],"block":[1,1,1],"shared":0,"args":"","pointers":[]})",
         }) {
        const std::string why = refused(header + call + bad + "\n" + end);
        EXPECT_FALSE(why.empty()) << bad;
    }
}
