#pragma once
// What the code under test asked the GPU to do during each timed call, for
// the judge to replay in its own process (course/testing/call_replay.hpp):
// each kernel launch with its grid, block, dynamic shared memory and the
// bytes of its arguments (which of them are pointers into device memory, and
// into which allocation), and each memset and copy, in the order they were
// made. CUPTI's callbacks hand the recorder each API call as it is made, on
// the caller's thread.
//
// Lines (one JSON object each, beside the activity records):
//   {"op":"launch","rep":3,"kernel":"_Z...","grid":[..],"block":[..],"shared":0,
//    "args":"<hex>","pointers":[[at,value,base,size],...]}
//   {"op":"memset","rep":3,"to":[value,base,size],"byte":0,"bytes":4096}
//   {"op":"copy","rep":3,"to":[value,base,size],"from":[value,base,size],"bytes":4096,
//    "direction":"HtoD","data":"<hex>"}
//   {"op":"event_record","rep":3,"event":<handle>,"stream":[<handle>,<flags>]}
//   {"op":"stream_wait","rep":3,"event":<handle>,"stream":[<handle>,<flags>]}
//   {"op":"host_wait","rep":3,"on":"stream"|"event"|"device",...}   the host waited there
//   {"op":"unreplayable","rep":3,"why":"..."}
//   {"op":"kept","rep":3,"at":[base,base,size],"data":"<hex>"}   memory as the call first
//                                               touched it (keep_memory), "data" only up to 64 KiB
// A launch also carries the kernel's function attributes where the program
// set them: "max_dynamic_shared" (bytes) and "carveout" (percent). Launches,
// memsets and copies carry their "stream" too; an HtoD copy above 64 KiB
// comes without its "data".
namespace course_recorder {

// Starts following the API calls (from course_gpu_record_start); 0 or CUPTI's error.
int follow_calls();
// Stops following them (from course_gpu_record_stop).
void stop_following_calls();
// The call in progress: its repetition, or -1 between calls.
void set_current_call(int repetition);
// Whether to write down device memory as each call first touches it
// ("kept" lines): asked for by the harness for calls the judge replays;
// a call no replay redoes copies nothing extra.
void keep_memory(bool keep);

}  // namespace course_recorder
