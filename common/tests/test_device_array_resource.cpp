// device_array with a course::memory_resource: the memory comes from the
// resource and goes back to it, on the array's stream. The resource here hands
// out host memory, so this runs without a GPU (nothing here touches the data).
#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>

#include "course/device_array.hpp"
#include "course/memory_resource.hpp"

namespace {

class recording_resource : public course::memory_resource {
public:
    int allocations = 0, deallocations = 0;
    std::size_t last_bytes = 0;
    cudaStream_t last_stream = nullptr;
    void* last_pointer = nullptr;

private:
    void* do_allocate(std::size_t bytes, cudaStream_t stream) override {
        ++allocations;
        last_bytes = bytes;
        last_stream = stream;
        return last_pointer = std::malloc(bytes);
    }
    void do_deallocate(void* p, std::size_t bytes, cudaStream_t stream) override {
        ++deallocations;
        last_bytes = bytes;
        last_stream = stream;
        last_pointer = p;
        std::free(p);
    }
};

cudaStream_t fake_stream() { return reinterpret_cast<cudaStream_t>(0x1234); }

}  // namespace

TEST(DeviceArrayResource, AllocatesAndFreesThroughTheResource) {
    recording_resource resource;
    void* data = nullptr;
    {
        course::device_array<float> a(100, resource, fake_stream());
        data = a.data();
        EXPECT_EQ(resource.allocations, 1);
        EXPECT_EQ(resource.last_bytes, 400u);
        EXPECT_EQ(resource.last_stream, fake_stream());
        EXPECT_EQ(a.size(), 100u);
        EXPECT_EQ(a.bytes(), 400u);
    }
    EXPECT_EQ(resource.deallocations, 1);
    EXPECT_EQ(resource.last_pointer, data);
    EXPECT_EQ(resource.last_bytes, 400u);
    EXPECT_EQ(resource.last_stream, fake_stream());
}

TEST(DeviceArrayResource, MovesCarryTheResource) {
    recording_resource resource;
    course::device_array<int> moved;
    {
        course::device_array<int> a(10, resource);
        moved = std::move(a);
    }
    EXPECT_EQ(resource.deallocations, 0) << "the moved-from array must not free the memory";
    moved = course::device_array<int>();
    EXPECT_EQ(resource.deallocations, 1);
    EXPECT_EQ(resource.last_bytes, 40u);
}

TEST(DeviceArrayResource, EmptyArrayTakesNothing) {
    recording_resource resource;
    { course::device_array<double> a(0, resource); }
    EXPECT_EQ(resource.allocations, 0);
    EXPECT_EQ(resource.deallocations, 0);
}
