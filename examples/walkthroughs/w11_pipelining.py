#!/usr/bin/env python3
"""Walkthrough 11: pipelining pre-processing, NPU and post-processing raises throughput, not latency.

A camera-style loop per frame: pre-processing on the CPU (2 ms: decode, resize, normalise),
inference on the NPU (~8 ms), post-processing on the CPU (1 ms: decode boxes, draw). Run as a
plain loop, one frame takes 2 + 8 + 1 = 11 ms and the NPU idles 3 ms of every 11. With
double-buffered input and output tensors the CPU pre-processes frame i+1 and post-processes
frame i-1 while the NPU runs frame i: a frame leaves every max(2, 8, 1) = 8 ms.

The script runs `Session.stream` (the Python form of `npusim stream`) for serial, one, two and
three buffers per tensor, prints interval, throughput, latency and NPU idle time, writes the
double-buffered run's Perfetto trace (OUT/w11_pipelining.trace.json) and draws the first frames
of the serial and pipelined schedules.

    python3 examples/walkthroughs/w11_pipelining.py [--quick]

Full mode: ResNet-50 at 224x224 (scripts/make_models.py, into OUT/models/) on configs/default.yaml
(about 7.5 ms simulated) with 2 ms pre- and 1 ms post-processing. --quick: models/tiny_convnet.onnx
(about 8 us) with pre- and post-processing scaled to the same 2 : 8 : 1 ratio of its inference.
"""
import subprocess
import sys

from _common import REPO, import_npusim, parse_args, pyplot, rel, save_figure, save_summary

CONFIG = REPO / "configs" / "default.yaml"
FRAMES = 24
STAGE_COLORS = {"pre": "tab:blue", "inference": "tab:orange", "post": "tab:green"}


def model_path(args):
    if args.quick:
        return REPO / "models" / "tiny_convnet.onnx"
    path = args.out / "models" / "resnet50.onnx"
    if not path.exists():
        subprocess.run([sys.executable, str(REPO / "scripts" / "make_models.py"), "--out", str(path.parent),
                        "--only", "resnet50"], check=True)
    return path


def gantt(ax, frames, title, end_us, per_us, shown=5):
    """per_us: plotted units per microsecond."""
    for i, f in enumerate(frames[:shown]):
        for row, (stage, a, b) in enumerate((("pre", "pre_start_us", "pre_end_us"),
                                             ("inference", "infer_start_us", "infer_end_us"),
                                             ("post", "post_start_us", "post_end_us"))):
            ax.broken_barh([(f[a] * per_us, (f[b] - f[a]) * per_us)], (row - 0.4, 0.8), color=STAGE_COLORS[stage],
                           edgecolor="k", linewidth=0.5)
            ax.text((f[a] + f[b]) / 2 * per_us, row, str(i), ha="center", va="center", fontsize=8)
    ax.set_yticks(range(3), ["CPU pre", "NPU inference", "CPU post"])
    ax.invert_yaxis()
    ax.set_xlim(0, end_us * per_us)
    ax.set_title(title, fontsize=10)


def main():
    args = parse_args(__doc__.splitlines()[0])
    npusim = import_npusim(args.build)
    model = model_path(args)
    session = npusim.compile(str(model), npusim.load_config(str(CONFIG)), precision="int8")
    infer_ms = session.stream(frames=1)["stages"]["inference"]["us"] / 1000
    pre_ms, post_ms = (infer_ms / 4, infer_ms / 8) if args.quick else (2.0, 1.0)
    unit, scale = ("us", 1000.0) if infer_ms < 1 else ("ms", 1.0)   # printed times

    runs = {d: session.stream(frames=FRAMES, pre_ms=pre_ms, post_ms=post_ms, depth=d,
                              trace=args.out / "w11_pipelining.trace.json" if d == 2 else None)
            for d in (1, 2, 3)}
    rows = {"serial": runs[2]["serial"], "1 buffer": runs[1]["pipelined"], "2 buffers": runs[2]["pipelined"],
            "3 buffers": runs[3]["pipelined"]}
    print(f"model   {rel(model)} on {CONFIG.relative_to(REPO)}, {FRAMES} frames")
    print(f"stages  CPU pre {pre_ms * scale:.4g} {unit}, NPU inference {infer_ms * scale:.4g} {unit} (simulated), "
          f"CPU post {post_ms * scale:.4g} {unit}")
    print(f"{'schedule':10s} {'interval ' + unit:>12s} {'frames/s':>10s} {'latency 1st':>12s} {'mean':>9s} {'max':>9s} "
          f"{'NPU busy':>9s}")
    t = lambda us: us / 1000 * scale  # noqa: E731
    for name, m in rows.items():
        print(f"{name:10s} {t(m['frame_interval_us']):12.4g} {m['throughput_fps']:10.1f} "
              f"{t(m['first_latency_us']):12.4g} {t(m['mean_latency_us']):9.4g} {t(m['max_latency_us']):9.4g} "
              f"{100 * m['npu_busy_us'] / m['makespan_us']:8.1f}%")
    speedup = rows["2 buffers"]["throughput_fps"] / rows["serial"]["throughput_fps"]
    slowest = max(pre_ms, infer_ms, post_ms)
    print(f"double-buffered throughput = {speedup:.3f} x serial; its frame interval is the slowest stage "
          f"({runs[2]['slowest_stage']}, {slowest * scale:.4g} {unit}); serial pays pre + inference + post = "
          f"{(pre_ms + infer_ms + post_ms) * scale:.4g} {unit}; one buffer pays pre + inference = "
          f"{(pre_ms + infer_ms) * scale:.4g} {unit}")
    print(f"latency does not improve: a frame still needs all three stages, and frames pre-processed early "
          f"wait for the NPU (mean {t(rows['2 buffers']['mean_latency_us']):.4g} {unit} vs "
          f"{t(rows['serial']['mean_latency_us']):.4g} {unit} serial)")
    print(f"trace: {args.out / 'w11_pipelining.trace.json'} (open in ui.perfetto.dev)")

    plt = pyplot()
    fig, ax = plt.subplots(3, 1, figsize=(12, 7.5), gridspec_kw={"height_ratios": [1, 1, 1.1]})
    end = rows["serial"]["frames"][4]["post_end_us"] * 1.02
    per_us = scale / 1000
    gantt(ax[0], rows["serial"]["frames"], f"serial: a frame every {t(rows['serial']['frame_interval_us']):.4g} {unit}",
          end, per_us)
    gantt(ax[1], rows["2 buffers"]["frames"],
          f"double-buffered: a frame every {t(rows['2 buffers']['frame_interval_us']):.4g} {unit}", end, per_us)
    ax[1].set_xlabel(unit)
    names = list(rows)
    ax[2].bar(names, [rows[n]["throughput_fps"] for n in names], color=["0.6", "tab:cyan", "tab:green", "tab:olive"])
    ax[2].set_ylabel("frames per second")
    for i, n in enumerate(names):
        ax[2].text(i, rows[n]["throughput_fps"], f"{rows[n]['throughput_fps']:.0f}\n"
                   f"lat {t(rows[n]['mean_latency_us']):.3g} {unit}", ha="center", va="bottom", fontsize=8)
    ax[2].set_ylim(0, max(rows[n]["throughput_fps"] for n in names) * 1.3)
    ax[2].set_title("steady-state throughput (mean latency per frame above the bars)", fontsize=10)
    fig.suptitle(f"{model.stem}: CPU pre {pre_ms * scale:.3g} {unit} + NPU {infer_ms * scale:.3g} {unit} + "
                 f"CPU post {post_ms * scale:.3g} {unit}")
    save_figure(fig, args.out, "w11_pipelining")
    save_summary(args.out, "w11_pipelining", {
        "model": str(model), "pre_ms": pre_ms, "infer_ms": infer_ms, "post_ms": post_ms,
        "slowest_stage": runs[2]["slowest_stage"], "speedup": speedup,
        "schedules": {n: {k: v for k, v in m.items() if k != "frames"} for n, m in rows.items()}})


if __name__ == "__main__":
    main()
