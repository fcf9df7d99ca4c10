// A library as a cheat would build it (the test of evidence/device_code.hpp):
// one kernel compiled from this source, and a byte array placed in a section
// named like the one nvcc embeds a source's device code in, holding a fat
// binary made elsewhere (here a made-up one: the header, then bytes that no
// source of this library produces).
__global__ void compiled_from_this_source(float* x) { x[threadIdx.x] = 1.0f; }

namespace {
struct made_elsewhere {
    unsigned magic;
    unsigned short version, header_bytes;
    unsigned long long fat_bytes;
    char payload[32];
};
__attribute__((section(".nv_fatbin"), used, aligned(8))) const made_elsewhere pasted = {
    0xBA55ED50u, 1, 16, 32, "machine code made elsewhere"};
}  // namespace
