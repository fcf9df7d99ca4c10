#include "course/timing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace course {

statistics summarize(std::vector<double> samples) {
    statistics s;
    s.n = samples.size();
    if (samples.empty()) return s;
    std::sort(samples.begin(), samples.end());
    s.min = samples.front();
    s.max = samples.back();
    const std::size_t mid = s.n / 2;
    s.median = s.n % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
    s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
    double squares = 0;
    for (double x : samples) squares += (x - s.mean) * (x - s.mean);
    s.stddev = s.n > 1 ? std::sqrt(squares / static_cast<double>(s.n - 1)) : 0.0;
    return s;
}

}  // namespace course
