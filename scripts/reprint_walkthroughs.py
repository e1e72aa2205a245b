#!/usr/bin/env python3
"""Re-runs the walkthroughs whose transcripts examples/README.md quotes and replaces each
transcript (the fenced block that starts with `$ python3 examples/walkthroughs/<name>`) with
what the script prints today; prints which transcripts changed. The prose around them is
written by hand: read the diff and fix any figure it quotes.

    python3 scripts/reprint_walkthroughs.py [--only w1_peak_vs_achieved ...] [--build DIR]
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "examples" / "README.md"
BLOCK = re.compile(r"```\n\$ (python3 examples/walkthroughs/(w\d+_\w+)\.py[^\n]*)\n(.*?)```", re.S)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", help="walkthrough name (e.g. w1_peak_vs_achieved), repeatable")
    ap.add_argument("--build", default=str(ROOT / "build"))
    args = ap.parse_args()
    text = README.read_text()
    env = dict(os.environ, NPUSIM_BUILD=args.build)
    changed = []

    def rerun(match):
        command, name, old = match.group(1), match.group(2), match.group(3)
        if args.only and name not in args.only:
            return match.group(0)
        done = subprocess.run(command.split(), cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{command}: exit {done.returncode}\n{done.stderr}")
        # Paths inside the checkout print relative to it, as the commands are given.
        out = done.stdout.replace(str(ROOT) + "/", "")
        new = "".join(line + "\n" for line in out.splitlines() if not line.startswith("figure: ")
                      and not re.search(r": \d+ nodes, \d+ bytes$", line))  # make_models.py's own lines
        if new != old:
            changed.append(name)
        return f"```\n$ {command}\n{new}```"

    README.write_text(BLOCK.sub(rerun, text))
    print("changed:", ", ".join(changed) if changed else "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
