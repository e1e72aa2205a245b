"""The result columns of a sweep: one per figure of the run's report (`npusim run --json`),
with whether less or more is better, so specs can name any of them as an objective or in a
constraint (`area_mm2 <= 4`, `power_mw <= 1000`). Every number is the C++ report's; nothing
is recomputed here."""

# column: (path in the report JSON, "min" or "max", what it is)
METRICS = {
    "cycles": (("cycles",), "min", "NPU cycles"),
    "latency_us": (("latency_us",), "min", "end-to-end latency (NPU + host)"),
    "npu_latency_us": (("npu_latency_us",), "min", "NPU time"),
    "achieved_tops": (("achieved_tops",), "max", "achieved TOPS"),
    "peak_tops": (("peak_tops",), "max", "peak TOPS"),
    "mac_utilization": (("mac_utilization",), "max", "MAC utilisation"),
    "macs": (("macs",), "min", "MACs executed"),
    "ddr_bytes_read": (("ddr", "bytes_read"), "min", "DDR bytes read"),
    "ddr_bytes_written": (("ddr", "bytes_written"), "min", "DDR bytes written"),
    "ddr_bus_bytes": (("ddr", "bus_bytes"), "min", "DDR bytes on the bus"),
    "sram_peak_bytes": (("sram", "peak_bytes"), "min", "SRAM bytes used"),
    "energy_uj": (("energy", "total_uj"), "min", "energy per inference, uJ"),
    "energy_mac_uj": (("energy", "mac_int8_uj"), "min", "MAC energy (int8 + fp16)"),
    "energy_sram_uj": (("energy", "sram_uj"), "min", "SRAM access energy"),
    "energy_ddr_uj": (("energy", "ddr_uj"), "min", "DDR energy"),
    "energy_vector_uj": (("energy", "vector_uj"), "min", "vector-unit energy (derived model)"),
    "energy_dma_uj": (("energy", "dma_uj"), "min", "DMA-engine energy (derived model)"),
    "energy_static_uj": (("energy", "static_uj"), "min", "static energy: leakage + clock + uncore"),
    "power_mw": (("energy", "average_power_mw"), "min", "average power over the NPU time, mW"),
    "static_power_mw": (("energy", "static_mw"), "min", "static power, mW"),
    "leakage_mw": (("leakage", "total_mw"), "min", "leakage of the parts (derived model), mW"),
    "tops_per_watt": (("energy", "tops_per_watt"), "max", "achieved TOPS per W"),
    "inferences_per_j": (("energy", "inferences_per_joule"), "max", "inferences per joule"),
    "edp_uj_us": (("energy", "energy_delay_uj_us"), "min", "energy-delay product, uJ x us"),
    "area_mm2": (("area", "total_mm2"), "min", "area, mm^2"),
    "area_sram_mm2": (("area", "sram_mm2"), "min", "SRAM area"),
    "area_mac_array_mm2": (("area", "mac_array_mm2"), "min", "MAC-array area"),
    "area_vector_mm2": (("area", "vector_mm2"), "min", "vector-unit area (derived model)"),
    "area_dma_mm2": (("area", "dma_mm2"), "min", "DMA area (derived model)"),
    "tops_per_mm2": (("area", "peak_tops_per_mm2"), "max", "peak TOPS per mm^2"),
    "achieved_tops_per_mm2": (("area", "achieved_tops_per_mm2"), "max", "achieved TOPS per mm^2"),
    "cpu_fallbacks": (None, "min", "nodes on the CPU"),
    # A decoder's generation loop (models[i].decoder; `npusim generate --json`). Its rows have
    # latency_us (prefill + every decode step), cycles and energy_uj (their sums) too.
    "time_to_first_token_us": (("time_to_first_token_us",), "min", "the prefill's latency"),
    "decode_us": (("decode_us",), "min", "every decode step's latency"),
    "tokens_per_s": (("tokens_per_s",), "max", "decode steps per second"),
    "energy_per_token_uj": (("energy_per_token_uj",), "min", "decode energy per generated token"),
    "decode_bound_us": (None, "min", "the decode steps' DDR bound: (weights + past K/V bytes) / bandwidth"),
    "decode_of_bound": (None, "max", "decode_bound_us / decode_us: 1 = as fast as the bytes allow"),
}

# The columns only a decoder's rows fill.
GENERATION_METRICS = ("time_to_first_token_us", "decode_us", "tokens_per_s", "energy_per_token_uj",
                      "decode_bound_us", "decode_of_bound")


# Known before the design runs (npusim.Config.costs()): constraints on these select points
# without simulating them.
DESIGN_METRICS = frozenset({"area_mm2", "area_sram_mm2", "area_mac_array_mm2", "area_vector_mm2", "area_dma_mm2",
                            "leakage_mw", "static_power_mw"})


def design_metrics(config):
    """The DESIGN_METRICS of a Config, from its design costs."""
    costs = config.costs()
    return {column: costs.get(column) for column in DESIGN_METRICS}


def direction(column):
    """"min" or "max" for a known column; "min" for any other numeric column."""
    return METRICS[column][1] if column in METRICS else "min"


def _at(report, path):
    node = report
    for key in path:
        if not isinstance(node, dict) or node.get(key) is None:
            return None
        node = node[key]
    return node


def generation_metrics(report):
    """The metric columns of a decoder's row, from `npusim generate`'s report: the generation
    columns, and cycles, latency_us and energy_uj summed over the prefill and the decode steps
    (so the default objectives rank generation loops too). The rest stay empty."""
    row = {column: _at(report, METRICS[column][0]) for column in GENERATION_METRICS if METRICS[column][0]}
    steps = report["steps"]
    decode = [s for s in steps if s["phase"] == "decode"]
    row["decode_bound_us"] = sum(s["bound_us"] for s in decode)
    row["decode_of_bound"] = row["decode_bound_us"] / row["decode_us"] if row["decode_us"] else None
    row["cycles"] = sum(s["cycles"] for s in steps)
    row["latency_us"] = sum(s["latency_us"] for s in steps)
    row["npu_latency_us"] = sum(s["npu_us"] for s in steps)
    energies = [s.get("energy_uj") for s in steps]
    row["energy_uj"] = None if None in energies else sum(energies)
    return row


def metrics(report):
    """The metric columns of one results row, from the run's report."""
    row = {column: _at(report, path) for column, (path, _, _) in METRICS.items() if path and column not in GENERATION_METRICS}
    energy = report.get("energy") or {}
    if row["energy_mac_uj"] is not None:
        row["energy_mac_uj"] += energy.get("mac_fp16_uj", 0.0)
    row["cpu_fallbacks"] = len(report.get("fallbacks", []))
    return row
