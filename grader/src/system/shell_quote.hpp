#pragma once
// One word for /bin/sh or bash, however odd: for the command lines the
// grader writes (a submission's build, a Slurm job script).
#include <string>
#include <string_view>

namespace grader {

// `text` as one shell word: unchanged when it is plain (letters, digits and
// _@%+=:,./-), otherwise in single quotes, each ' written as '\''.
std::string shell_quote(std::string_view text);

}  // namespace grader
