#!/usr/bin/env python3
"""Checks that the compiler's stages include only the stages below them.

The compiler is built in stages (compiler/README.md), each a folder and a library:

    core  <-  reference  <-  frontend  <-  passes  <-  quant  <-  backend  <-  compiler/ (the driver)

A file may include its own stage and the stages to its left; the driver files at compiler/'s top
(compile, pipeline, lowering_cache, host_flops) may include everything. Exit status 1 lists
every include that runs the wrong way.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
STAGES = ["core", "reference", "frontend", "passes", "quant", "backend"]
DRIVER = len(STAGES)  # compiler/*.{h,cpp}
INCLUDE = re.compile(r'^\s*#\s*include\s+"compiler/([^"]+)"', re.MULTILINE)


def stage_of(path_in_compiler: str) -> int:
    first = path_in_compiler.split("/", 1)[0]
    return STAGES.index(first) if first in STAGES else DRIVER


def stage_name(level: int) -> str:
    return STAGES[level] if level < DRIVER else "compiler/ (driver)"


def main() -> int:
    compiler = ROOT / "compiler"
    wrong = []
    for source in sorted(compiler.rglob("*")):
        if source.suffix not in (".h", ".cpp"):
            continue
        rel = source.relative_to(compiler).as_posix()
        level = stage_of(rel)
        for included in INCLUDE.findall(source.read_text()):
            if stage_of(included) > level:
                wrong.append(f"compiler/{rel} ({stage_name(level)}) includes compiler/{included} "
                             f"({stage_name(stage_of(included))})")
    for line in wrong:
        print(line)
    if wrong:
        print(f"{len(wrong)} include(s) run up the compiler's stages", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
