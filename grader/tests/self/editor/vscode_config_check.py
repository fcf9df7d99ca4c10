#!/usr/bin/env python3
"""VS Code's debug configuration matches the course it sits in.

.vscode/launch.json runs one lesson's graded tests under cuda-gdb, picking
the program from a list; its preLaunchTask (in .vscode/tasks.json) builds
those programs with the CMake preset `debug`. A lesson added, renamed or
dropped would leave the list, the task or the preset behind without anyone
noticing until a student pressed F5, so this compares all three with the
build's course_manifest.json.

usage: vscode_config_check.py SOURCE_DIR BUILD_DIR
"""
import json
import sys
from pathlib import Path


def main():
    source_dir, build_dir = Path(sys.argv[1]), Path(sys.argv[2])
    manifest = json.loads((build_dir / "course_manifest.json").read_text())
    expected = sorted(lesson["variants"]["exercise"]["tests_target"] for lesson in manifest["lessons"])
    launch = json.loads((source_dir / ".vscode/launch.json").read_text())
    tasks = json.loads((source_dir / ".vscode/tasks.json").read_text())
    presets = json.loads((source_dir / "CMakePresets.json").read_text())
    problems = []

    debug = [c for c in launch["configurations"] if c["type"] == "cuda-gdb"]
    if len(debug) != 1:
        problems.append(f"launch.json has {len(debug)} cuda-gdb configurations; one is expected")
    inputs = {i["id"]: i for i in launch.get("inputs", [])}
    offered = sorted(inputs.get("testProgram", {}).get("options", []))
    if offered != expected:
        problems.append(f"launch.json offers {offered}; the course's exercise tests are {expected}")

    preset = next((p for p in presets["configurePresets"] if p["name"] == "debug"), None)
    if preset is None:
        problems.append("CMakePresets.json has no configure preset 'debug'")
    else:
        if "-G" not in preset.get("cacheVariables", {}).get("CMAKE_CUDA_FLAGS", "").split():
            problems.append("the debug preset does not compile device code with -G")
        bin_dir = preset["binaryDir"].replace("${sourceDir}", "${workspaceFolder}") + "/bin/"
        for config in debug:
            if not config["program"].startswith(bin_dir):
                problems.append(f"launch.json runs {config['program']}, outside the debug preset's {bin_dir}")

    labels = {t["label"]: t for t in tasks["tasks"]}
    for config in debug:
        task = labels.get(config.get("preLaunchTask"))
        if task is None:
            problems.append(f"launch.json's preLaunchTask {config.get('preLaunchTask')!r} is not in tasks.json")
            continue
        command = task["command"]
        built = sorted(word for word in command.split() if word.endswith("_exercise_tests"))
        if "--preset debug" not in command or built != expected:
            problems.append(f"the task {task['label']!r} builds {built} with {command!r}; expected {expected} "
                            "with --preset debug")

    for problem in problems:
        print("FAIL:", problem)
    print(f"{len(expected)} lessons' tests offered to cuda-gdb, built by the debug preset" if not problems else "")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
