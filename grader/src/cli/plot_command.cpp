// grader plot FILE: draws a `grader bench` file with matplotlib, through the
// course's plot script (grader/plot/course_plot.py), which also runs alone:
//   python3 grader/plot/course_plot.py FILE [-o out.png] [--kind ...]
#include <fmt/format.h>

#include <iostream>

#include "checkout/context.hpp"
#include "cli/commands.hpp"
#include "course/temp_dir.hpp"
#include "system/process.hpp"
#include "system/python.hpp"

namespace grader {

int cmd_plot(const common_args& common, const plot_args& args) {
    if (!fs::exists(args.input))
        throw user_error(usage_error, fmt::format("{} does not exist. `grader bench LESSON` writes one and prints "
                                                  "its path.", args.input.string()));
    const manifest m = open_build(common.build_dir);
    if (args.output) check_output_path(m, *args.output);
    const fs::path script = m.source_dir / "grader" / "plot" / "course_plot.py";
    if (!fs::exists(script))
        throw user_error(build_error, fmt::format("the plot script {} is missing from the course", script.string()));

    course::temp_dir scratch("grader-plot");
    const std::string python = find_python(scratch / "check.log");
    std::vector<std::string> argv = {"/usr/bin/env", python, script.string(), fs::absolute(args.input).string(),
                                     "--kind", args.kind};
    if (args.output) argv.insert(argv.end(), {"-o", fs::absolute(*args.output).string()});
    for (const auto& family : args.families) argv.insert(argv.end(), {"--family", family});
    if (!args.baseline.empty()) argv.insert(argv.end(), {"--baseline", args.baseline});

    const fs::path log = scratch / "plot.log";
    const exit_status status = run_command(argv, log);
    std::cout << tail_of_file(log, 40);
    if (status.signaled || status.code != 0) {
        std::cerr << fmt::format("grader: the plot script failed ({})\n", status.describe());
        return status.code == 2 ? usage_error : build_error;
    }
    return all_passed;
}

}  // namespace grader
