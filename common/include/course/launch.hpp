#pragma once
// Launch-configuration arithmetic shared by every lesson.
#include <cstddef>

namespace course {

// How many blocks of `threads` cover `n` elements: the division rounds up, so
// the last, partial block is launched too (its extra threads must not write).
constexpr unsigned blocks_for(std::size_t n, unsigned threads) {
    return threads == 0 ? 0u : static_cast<unsigned>((n + threads - 1) / threads);
}

}  // namespace course
