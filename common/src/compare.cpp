#include "course/compare.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "course/cpus.hpp"

namespace course {

std::string with_commas(std::size_t value) {
    // Built by appending: inserting into the string warned falsely under
    // GCC 12's -Wrestrict.
    const std::string digits = std::to_string(value);
    std::string grouped;
    grouped.reserve(digits.size() + digits.size() / 3);
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
        grouped += digits[i];
    }
    return grouped;
}

std::string comparison::summary() const {
    if (ok()) return fmt::format("all {} right", with_commas(count));
    return fmt::format("{} of {} right; first wrong at {}", with_commas(count - wrong),
                       with_commas(count), with_commas(first_wrong));
}

namespace detail {

namespace {
// Below this many elements a piece is not worth a thread.
constexpr std::size_t elements_per_piece_at_least = std::size_t{1} << 18;
}  // namespace

std::size_t pieces_for(std::size_t count) {
    const auto cores = static_cast<std::size_t>(usable_cpus());
    return std::max<std::size_t>(1, std::min(cores, count / elements_per_piece_at_least));
}

void compare_pieces(std::size_t count, std::size_t pieces,
                    const std::function<void(std::size_t, std::size_t, std::size_t)>& compare_one) {
    const std::size_t per_piece = (count + pieces - 1) / pieces;
    run_parts(pieces, [&](std::size_t piece) {
        compare_one(piece, std::min(count, piece * per_piece), std::min(count, (piece + 1) * per_piece));
    });
}

comparison merged(const std::vector<comparison>& pieces, std::size_t count, std::size_t keep_examples) {
    comparison all;
    all.count = count;
    all.first_wrong = count;
    for (const comparison& piece : pieces) {  // in order: the first wrong piece has the first wrong element
        if (piece.wrong > 0) {
            if (all.wrong == 0) all.first_wrong = piece.first_wrong;
            all.last_wrong = piece.last_wrong;
        }
        all.wrong += piece.wrong;
        all.nan += piece.nan;
        all.max_abs_error = std::max(all.max_abs_error, piece.max_abs_error);
        all.max_rel_error = std::max(all.max_rel_error, piece.max_rel_error);
        for (const mismatch& m : piece.examples)
            if (all.examples.size() < keep_examples) all.examples.push_back(m);
    }
    return all;
}

}  // namespace detail

}  // namespace course
