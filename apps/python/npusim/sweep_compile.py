"""Which design points can share one compiled program. The compiler reads most config keys
(to decide what fits, or to estimate which schedule is fastest); points that differ only in
keys it does not read get the same program, so a sweep compiles once per distinct value of the rest.
tests/python/test_sweep_compile.py changes each key listed here and checks that the
compiled program stays byte-identical, so a compiler that starts reading one fails there."""
import hashlib
import json

# Keys that change timing, energy or area but not the program.
TIMING_ONLY_KEYS = frozenset({
    # The tiler and the scheduler estimate cycles from clock, DDR, DMA, SRAM, MAC array, vector
    # and controller keys (costmodel/program_estimate.h times whole layers and the interleaving
    # choices), so those change the program; these do not (guarded by
    # tests/python/test_sweep_compile.py).
    "dram.page_policy", "dram.scheduler", "dram.queue_depth",
    "host.gflops", "host.memcpy_gbps", "host.transition_us", "host.launch_us", "host.layer_dispatch_us",
})
TIMING_ONLY_SECTIONS = ("energy.", "area.")
# With sram.timing: derived the scratchpad's access time comes from the energy section's
# technology table, and the tiler estimates with it.
DERIVED_TIMING_KEYS = frozenset({"energy.model", "energy.tech_nm", "energy.tech_table", "energy.sram_rw_ports"})

# Keys a spec may list in share_program_across: the compiler reads them only to estimate
# time (which tiling is fastest), never to decide what fits, so a program compiled for one
# value runs correctly at another; it is then the program built for the base system, run on
# a variant of it (sharing changes the results: scripts/bench_sweep prints by how much).
SHAREABLE_KEYS = ("clock.frequency_mhz", "ddr.bandwidth_gbps", "ddr.latency_ns", "ddr.other_agents_share",
                  "ddr.row_miss_ns", "dma.setup_cycles", "dma.arbitration", "dma.arbitration_bytes", "dma.channel_queue",
                  "controller.queue_depth", "controller.dispatch_cycles", "sram.banks", "sram.bank_mapping",
                  "sram.bank_interleave_bytes", "sram.bank_width_bytes")


def compiler_reads(path, values=None):
    if values and values.get("sram.timing") == "derived" and path in DERIVED_TIMING_KEYS:
        return True
    return path != "name" and path not in TIMING_ONLY_KEYS and not path.startswith(TIMING_ONLY_SECTIONS)


def compile_values(config_values, base_values, shared=()):
    """The config values a point's program is compiled with: its own, except the shared keys,
    which take the base config's values."""
    if not shared:
        return config_values
    return {**config_values, **{p: base_values[p] for p in shared if p in base_values}}


def compile_key(model, config_values, options=None):
    """Points with equal keys get the same program. config_values: {key path: value} (after
    compile_values when the spec shares programs); options: the point's compile options
    (model.options(design.compile)); None: the model entry's own."""
    options = options or model.options()
    relevant = {p: v for p, v in config_values.items() if compiler_reads(p, config_values)}
    key = {"model": model.path, "precision": options["precision"], "input_shapes": model.input_shapes,
           "calib": model.calib, "strict": model.strict, "config": relevant}
    if options["weights"] or options["group_size"]:  # absent otherwise: keys of older sweeps stay as they were
        key["weights"], key["group_size"] = options["weights"], options["group_size"]
    if model.decoder:
        key["decoder"] = model.decoder
    return hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
