"""Shared helpers for the walkthroughs: find the build tree, import npusim, run the CLI.

Every walkthrough takes --build DIR (default: $NPUSIM_BUILD, else build/) and --out DIR
(default examples/out/), and writes its figure(s) plus a <name>.json with the numbers it
printed, which tests/python/test_walkthroughs.py checks.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def parse_args(description, extra=None):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--build", default=os.environ.get("NPUSIM_BUILD", str(REPO / "build")),
                   help="build tree with bin/npusim and python/npusim (default $NPUSIM_BUILD or build/)")
    p.add_argument("--out", default=str(REPO / "examples" / "out"), help="output directory (default examples/out/)")
    p.add_argument("--quick", action="store_true", help="small inputs, timing-only: what the tests run")
    if extra:
        extra(p)
    args = p.parse_args()
    args.build = Path(args.build).resolve()
    args.out = Path(args.out).resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    return args


def import_npusim(build):
    sys.path.insert(0, str(build / "python"))
    import npusim  # noqa: E402
    return npusim


def npusim_cli(build, *argv, check=True):
    """Run build/bin/npusim with argv from the repository root; return CompletedProcess."""
    cmd = [str(build / "bin" / "npusim"), *map(str, argv)]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}")
    return r


def rel(path):
    """path relative to the repository root when it is inside it (for printing)."""
    path = Path(path).resolve()
    return path.relative_to(REPO) if path.is_relative_to(REPO) else path


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, out, name):
    """Lay out fig and write it to OUT/<name>.png; print and return the path."""
    fig.tight_layout()
    png = Path(out) / f"{name}.png"
    fig.savefig(png, dpi=110)
    print(f"figure: {png}")
    return png


def model_ladder(args, **extra):
    """Models from small to large by name: the repository's small models, the extra entries and, unless
    --quick, ResNet-18 and ResNet-50 at 224x224 (made once into OUT/models by scripts/make_models.py)."""
    found = {"tiny_convnet": REPO / "models" / "tiny_convnet.onnx",
             "resnet_small": REPO / "models" / "exported" / "resnet_small_opset11.onnx",
             "squeezenet1_1": REPO / "models" / "exported" / "squeezenet1_1.onnx", **extra}
    if not args.quick:
        for name in ("resnet18", "resnet50"):
            path = args.out / "models" / f"{name}.onnx"
            if not path.exists():
                subprocess.run([sys.executable, str(REPO / "scripts" / "make_models.py"), "--out", str(path.parent),
                                "--only", name, "--input-size", "224"], check=True)
            found[name] = path
    return found


def save_summary(out, name, summary):
    path = Path(out) / f"{name}.json"
    path.write_text(json.dumps(summary, indent=2, default=float))
    return path
