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
//   {"op":"unreplayable","rep":3,"why":"..."}
namespace course_recorder {

// Starts following the API calls (from course_gpu_record_start); 0 or CUPTI's error.
int follow_calls();
// Stops following them (from course_gpu_record_stop).
void stop_following_calls();
// The call in progress: its repetition, or -1 between calls.
void set_current_call(int repetition);

}  // namespace course_recorder
