#include "course/testing/buffers.hpp"

#include "course/testing/graded.hpp"

namespace course::testing {

test_input<float> random_input(std::size_t n, const std::string& name, guard_side side) {
    test_input<float> input{name, random_floats(n, derive_seed(seed(), name.c_str())), {}};
    input.device = guard_paged_array<float>::from_host(input.host, side, name);
    return input;
}

}  // namespace course::testing
