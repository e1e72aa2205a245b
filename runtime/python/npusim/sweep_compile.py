"""Which design points can share one compiled program. The compiler reads only a few config
keys (today: SRAM capacity and alignment, DDR capacity); points that differ only in keys it
does not read get the same program, so a sweep compiles once per distinct value of the rest.
tests/python/test_sweep_compile.py changes each key listed here and checks that the
compiled program stays byte-identical, so a compiler that starts reading one fails there."""
import hashlib
import json

# Keys that change timing, energy or area but not the program.
TIMING_ONLY_KEYS = frozenset({
    # The tiler estimates cycles from clock, DDR, DMA, SRAM port, MAC array and vector keys, so
    # those change the program; these do not (guarded by tests/python/test_sweep_compile.py).
    "sram.banks", "sram.bank_mapping", "sram.bank_interleave_bytes", "sram.bank_width_bytes",
    "dma.arbitration", "dma.arbitration_bytes",
    "dram.page_policy", "dram.scheduler", "dram.queue_depth",
    "controller.queue_depth", "controller.dispatch_cycles",
    "host.gflops", "host.memcpy_gbps", "host.transition_us",
})
TIMING_ONLY_SECTIONS = ("energy.", "area.")


def compiler_reads(path):
    return path != "name" and path not in TIMING_ONLY_KEYS and not path.startswith(TIMING_ONLY_SECTIONS)


def compile_key(model, config_values):
    """Points with equal keys get the same program. config_values: {key path: value}."""
    relevant = {p: v for p, v in config_values.items() if compiler_reads(p)}
    key = {"model": model.path, "precision": model.precision, "input_shapes": model.input_shapes,
           "calib": model.calib, "strict": model.strict, "config": relevant}
    return hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
