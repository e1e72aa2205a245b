#!/usr/bin/env python3
"""Generate configs/tech/<node>.yaml: area, leakage and per-access energy tables for npusim.

Runs in the Python 3.12 venv made by scripts/make_tech_tables.sh (hwcomponents,
hwcomponents-cacti with a CACTI binary rebuilt from the wheel's source, hwcomponents-library);
none of these packages is needed at npusim run time, only the YAML files this writes.

    scripts/make_tech_tables.sh                      # venv + CACTI build + this script
    /work/venv-hwc/bin/python scripts/make_tech_tables.py --out configs/tech [--nodes 7,22,45]
    /work/venv-hwc/bin/python scripts/make_tech_tables.py --quick --out /tmp/tech   # small grid

Every table says which model produced it, the model's version and the parameters passed;
figures not produced by a model say `source: literature` and carry the citation. The file
format is described in configs/tech/README.md.
"""

from __future__ import annotations

import argparse
import concurrent.futures as futures
import datetime as dt
import importlib.metadata as md
import math
import os
import platform
import re
import subprocess
import sys
import time

PACKAGES = ["hwcomponents", "hwcomponents-cacti", "hwcomponents-library", "hwcomponents-neurosim", "PyYAML"]

# ----------------------------------------------------------------------------- grid
CAPACITIES_KIB = [16 << i for i in range(11)]  # 16 KiB ... 16 MiB
BANKS = [1, 2, 4, 8, 16, 32]
PORT_BYTES = [8, 16, 32, 64, 128]
RW_PORTS = [1, 2]
NODES_NM = [7, 22, 45]
# hwcomponents-cacti runs CACTI only at these nodes and scales every other one from the
# nearest (hwcomponents_cacti._Memory._interp_tech_node); read from the package at run time.
SRAM_FIELDS = ["read_pj_per_byte", "write_pj_per_byte", "leakage_mw", "area_mm2", "access_ns", "cycle_ns"]
MONOTONE_FIELDS = ["read_pj_per_byte", "write_pj_per_byte", "leakage_mw", "area_mm2"]

# ----------------------------------------------------------------------------- literature
# Figures that none of the packages model. Each is quoted as published, at the node
# published, and scaled to the table's node with hwcomponents.scaling (Stillmaker & Baas).
HOROWITZ = {
    "citation": 'M. Horowitz, "Computing\'s energy problem (and what we can do about it)", '
                "IEEE ISSCC 2014, pp. 10-14, doi:10.1109/ISSCC.2014.6757323 (45 nm, 0.9 V; "
                "energy and area table of the keynote)",
    "node_nm": 45,
    # name: (energy pJ per operation, area um^2)
    "ops": {
        "int8_add": (0.03, 36.0),
        "int16_add": (0.05, 67.0),
        "int32_add": (0.1, 137.0),
        "int8_mul": (0.2, 282.0),
        "int32_mul": (3.1, 3495.0),
        "fp16_add": (0.4, 1360.0),
        "fp32_add": (0.9, 4184.0),
        "fp16_mul": (1.1, 1640.0),
        "fp32_mul": (3.7, 7700.0),
    },
}

# DRAM energy per bit. hwcomponents-cacti models DRAM only as a fixed pJ/bit per type
# (_DRAM.type2energylatency, zero area and leakage); the types it lacks come from papers.
DRAM_LITERATURE = [
    {
        "technology": "DDR4",
        "energy_pj_per_bit": 20.3,
        "range_pj_per_bit": [20.3, 40.6],
        "citation": 'N. P. Jouppi et al., "Ten Lessons From Three Generations Shaped Google\'s '
                    'TPUv4i", ISCA 2021, Table 2: DDR3/4 1300 pJ per 64-bit access; the same '
                    "1.3-2.6 nJ per 64 bits as Horowitz, ISSCC 2014",
        "scope": "whole access at the DRAM and its interface, off-chip DIMM-class channel",
    },
    {
        "technology": "HBM2",
        "energy_pj_per_bit": 3.9,
        "range_pj_per_bit": [3.9, 7.0],
        "citation": 'M. O\'Connor et al., "Fine-Grained DRAM: Energy-Efficient DRAM for Extreme '
                    'Bandwidth Systems", MICRO 2017, doi:10.1145/3123939.3124545 (HBM2 baseline, '
                    "about 3.9 pJ/bit); range up to 450 pJ per 64-bit access from Jouppi et al., "
                    "ISCA 2021, Table 2",
        "scope": "activation + on-die data movement + I/O, 2.5D interposer",
    },
    {
        "technology": "GDDR6",
        "energy_pj_per_bit": 5.5,
        "range_pj_per_bit": [5.5, 7.5],
        "citation": 'N. P. Jouppi et al., "Ten Lessons From Three Generations Shaped Google\'s '
                    'TPUv4i", ISCA 2021, Table 2: GDDR6 350-480 pJ per 64-bit access',
        "scope": "whole access at the DRAM and its interface",
    },
]
DRAM_MISSING = {
    "LPDDR4X": "not in hwcomponents-cacti (it has LPDDR4); no primary source for a pJ/bit figure "
               "could be checked from this build machine",
    "LPDDR5": "not in hwcomponents-cacti; no primary source checked (vendor material gives only "
              "relative savings against LPDDR4X)",
    "LPDDR5X": "not in hwcomponents-cacti; no primary source checked (vendor material gives only "
               "relative savings against LPDDR5)",
    "DDR5": "not in hwcomponents-cacti; no primary source checked",
}


# ============================================================================= helpers
def versions() -> dict:
    out = {}
    for p in PACKAGES:
        try:
            out[p] = md.version(p)
        except md.PackageNotFoundError:
            out[p] = None
    return out


def sig(x: float | None, digits: int = 4):
    """Round to `digits` significant digits (keeps small leakage figures readable)."""
    if x is None:
        return None
    if x == 0 or not math.isfinite(x):
        return x
    return float(f"{x:.{digits}g}")


def node_m(node_nm: int) -> float:
    """The node in metres such that hwcomponents-cacti's `tech_node * 1e9` gives back exactly
    node_nm: 22 * 1e-9 * 1e9 is 22.000000000000004, which it treats as between 22 and 32 nm and
    answers by running CACTI at both and interpolating (twice the runs, same figures)."""
    t = node_nm / 1e9
    assert t * 1e9 == node_nm, node_nm
    return t


def cacti_dir() -> str:
    import hwcomponents_cacti

    return os.path.join(os.path.dirname(hwcomponents_cacti.__file__), "cacti")


def cacti_defaults() -> dict:
    """The CACTI input lines hwcomponents-cacti applies to every run (its default_cfg.cfg)."""
    import hwcomponents_cacti

    path = os.path.join(os.path.dirname(hwcomponents_cacti.__file__), "default_cfg.cfg")
    wanted = {
        "Data array cell type": "data_cell_type",
        "Data array peripheral type": "data_peripheral_type",
        "operating temperature (K)": "temperature_k",
        "access mode": "access_mode",
        "design objective": "design_objective_delay_dynamic_leakage_cycle_area",
        "deviate (delay": "max_deviation_pct_delay_dynamic_leakage_cycle_area",
        "Optimize ED or ED^2": "optimize",
        "Wire signaling": "wire_signaling",
        "Interconnect projection": "interconnect_projection",
        "Add ECC": "ecc",
    }
    out = {}
    for line in open(path):
        line = line.strip()
        if not line.startswith("-") or line.startswith("-NUCA"):
            continue
        for key, name in wanted.items():
            if line[1:].startswith(key) and name not in out:
                value = line.rsplit(" ", 1)[-1].strip().strip('"')
                out[name] = value
    return out


def check_cacti_binary() -> str:
    """CACTI must run on this machine; the wheel's prebuilt binary needs glibc 2.38."""
    exe = os.path.join(cacti_dir(), "cacti")
    if not os.path.isfile(exe):
        sys.exit(f"make_tech_tables: no CACTI binary at {exe}; run scripts/make_tech_tables.sh")
    probe = subprocess.run([exe, "-h"], capture_output=True, text=True, cwd=cacti_dir())
    if "GLIBC" in probe.stderr or "GLIBCXX" in probe.stderr:
        sys.exit(f"make_tech_tables: {exe} was not built on this machine ({probe.stderr.strip()}); "
                 "run scripts/make_tech_tables.sh, which rebuilds it with `make opt`")
    return exe


def supported_cacti_nodes() -> list[int]:
    import inspect
    import hwcomponents_cacti.hwcomponents_cacti as hc

    src = inspect.getsource(hc._Memory._interp_tech_node)
    m = re.search(r"supported_technologies\s*=\s*\[([^\]]*)\]", src)
    return [int(v) for v in m.group(1).split(",")] if m else []


def cacti_failure_reason(exc: Exception) -> str:
    """The line of CACTI's own output that says why, or the exception text."""
    text = str(exc)
    m = re.search(r"Please check (\S+) for CACTI output", text)
    if m and os.path.exists(m.group(1)):
        lines = [l.strip() for l in open(m.group(1), errors="replace") if l.strip()]
        errors = [l for l in lines if "error" in l.lower() or "assert" in l.lower()]
        if errors:
            return errors[-1][:200]
        if lines:
            return lines[-1][:200]
    return text.splitlines()[0][:200] if text else type(exc).__name__


# ============================================================================= SRAM
def sram_point(point: tuple[int, int, int, int], nodes: list[int]) -> dict:
    """One grid point at every node: {node: {field: value} | {"error": reason}}.

    Nodes CACTI does not support are scaled by hwcomponents-cacti from CACTI's 22 nm run of the
    same point, which it caches on disk; computing all nodes of one point together reuses it.
    """
    from hwcomponents import ComponentModel  # noqa: F401  (import order: logging setup)
    from hwcomponents._logging import pop_all_messages
    from hwcomponents_cacti import SRAM

    cap_kib, ports, banks, port_bytes = point
    out = {}
    for node in nodes:
        try:
            s = SRAM(tech_node=node_m(node), width=port_bytes * 8, size=cap_kib * 1024 * 8,
                     n_rw_ports=ports, n_banks=banks)
            r, w = s.read(), s.write()
            out[node] = {
                "read_pj_per_byte": r.energy * 1e12 / port_bytes,
                "write_pj_per_byte": w.energy * 1e12 / port_bytes,
                "leakage_mw": s.leak_power * 1e3,
                "area_mm2": s.area * 1e6,
                "access_ns": s.access_time * 1e9,
                "cycle_ns": s.cycle_period * 1e9,
            }
            try:
                pop_all_messages(s.logger)
            except Exception:
                pass
        except Exception as exc:  # CACTI found no organisation, or rejected the input
            out[node] = {"error": cacti_failure_reason(exc)}
    return out


def sram_origin(cap_kib: int, banks: int, port_bytes: int) -> str:
    """'c': CACTI ran at exactly this point; 's': hwcomponents-cacti ran CACTI at a deeper array
    and scaled down (it raises depth to 64 rows per bank: energy x (depth ratio)^0.78, area and
    leakage x depth ratio; hwcomponents_cacti._Memory._interp_size)."""
    depth = cap_kib * 1024 // port_bytes
    return "c" if depth >= 64 * banks else "s"


def run_sram(nodes: list[int], caps: list[int], jobs: int, log) -> dict:
    points = [(c, p, b, w) for p in RW_PORTS for b in BANKS for w in PORT_BYTES for c in caps]
    results: dict = {}
    t0 = time.time()
    done = 0
    if jobs > 1:
        with futures.ProcessPoolExecutor(max_workers=jobs) as ex:
            fut = {ex.submit(sram_point, pt, nodes): pt for pt in points}
            for f in futures.as_completed(fut):
                results[fut[f]] = f.result()
                done += 1
                if done % 50 == 0:
                    log(f"  sram {done}/{len(points)} points, {time.time() - t0:.0f} s")
    else:
        for pt in points:
            results[pt] = sram_point(pt, nodes)
            done += 1
            if done % 50 == 0:
                log(f"  sram {done}/{len(points)} points, {time.time() - t0:.0f} s")
    return results


def sram_series(results: dict, node: int, caps: list[int]) -> tuple[list, list, list]:
    """Series per (rw_ports, banks, port_bytes), the monotonicity violations and failures."""
    series, violations, failures = [], [], []
    for p in RW_PORTS:
        for b in BANKS:
            for w in PORT_BYTES:
                row = {"rw_ports": p, "banks": b, "port_bytes": w}
                cols = {f: [] for f in SRAM_FIELDS}
                origin = []
                for c in caps:
                    r = results[(c, p, b, w)][node]
                    if "error" in r:
                        for f in SRAM_FIELDS:
                            cols[f].append(None)
                        origin.append("x")
                        failures.append({"capacity_kib": c, "rw_ports": p, "banks": b,
                                         "port_bytes": w, "reason": r["error"]})
                    else:
                        for f in SRAM_FIELDS:
                            cols[f].append(sig(r[f]))
                        origin.append(sram_origin(c, b, w))
                row.update(cols)
                row["origin"] = "".join(origin)
                series.append(row)
                # Monotonicity over capacity at fixed ports/banks/port width, on the values
                # written to the file (present points only, in capacity order).
                for f in MONOTONE_FIELDS:
                    prev = None
                    for c, v in zip(caps, cols[f]):
                        if v is None:
                            continue
                        if prev is not None and v < prev[1]:
                            violations.append({
                                "field": f, "rw_ports": p, "banks": b, "port_bytes": w,
                                "from_kib": prev[0], "to_kib": c, "from": prev[1], "to": v,
                                "drop_pct": sig(100.0 * (prev[1] - v) / prev[1], 3),
                            })
                        prev = (c, v)
    return series, violations, failures


# ============================================================================= logic
def logic_tables(node: int) -> dict:
    """MAC, PE registers, vector lane and DMA channel figures at one node."""
    from hwcomponents.scaling import tech_node_area, tech_node_energy, tech_node_leak  # noqa: F401
    from hwcomponents_library import (AladdinAdder, AladdinComparator, AladdinIntMAC,
                                      AladdinMultiplier, AladdinRegister, Wire)

    t = node_m(node)

    def comp(obj, energy_j: float) -> dict:
        return {"energy_pj": sig(energy_j * 1e12), "area_um2": sig(obj.area * 1e12),
                "leakage_uw": sig(obj.leak_power * 1e6)}

    lib = "hwcomponents-library " + md.version("hwcomponents-library")
    aladdin_prov = {
        "model": lib + " (Aladdin components: Shao et al., ISCA 2014, 40 nm post-layout table)",
        "tech_scaling": "hwcomponents " + md.version("hwcomponents") + " scaling.tech_node_energy/"
                        "area/leak from 40 nm (Stillmaker & Baas, Integration 58, 2017), vdd 0.8 V",
        "width_scaling": "adder, register, comparator linear in bits; multiplier quadratic in width "
                         "(width=) or linear in each operand (width_a=, width_b=); from 32 bits",
        "clock": "1 GHz (the models' global_cycle_period); energy is per operation, not per cycle",
    }
    horowitz_e = tech_node_energy(t, node_m(HOROWITZ["node_nm"]))
    horowitz_a = tech_node_area(t, node_m(HOROWITZ["node_nm"]))
    lit_prov = {
        "source": "literature",
        "citation": HOROWITZ["citation"],
        "tech_scaling": f"hwcomponents {md.version('hwcomponents')} scaling.tech_node_energy "
                        f"(x{sig(horowitz_e)}) and tech_node_area (x{sig(horowitz_a)}) from 45 nm, "
                        "vdd 0.8 V",
        "leakage": "not published: leakage_uw is null",
    }

    def lit(name_a: str, name_b: str | None = None) -> dict:
        e = HOROWITZ["ops"][name_a][0] + (HOROWITZ["ops"][name_b][0] if name_b else 0)
        a = HOROWITZ["ops"][name_a][1] + (HOROWITZ["ops"][name_b][1] if name_b else 0)
        return {"energy_pj": sig(e * horowitz_e), "area_um2": sig(a * horowitz_a), "leakage_uw": None}

    # ---- MAC units: one multiplier + one accumulator adder per MAC.
    mac = {}
    for name, mw, aw in [("int8", 8, 32), ("int4", 4, 32)]:
        m = AladdinIntMAC(tech_node=t, adder_width=aw, multiplier_width=mw)
        mac[name] = comp(m, m.mac().energy)
        mac[name].update({"source": lib + " AladdinIntMAC",
                          "params": {"tech_node_m": t, "multiplier_width": mw, "adder_width": aw}})
    mac["fp16"] = lit("fp16_mul", "fp32_add")
    mac["fp16"].update({"source": "literature",
                        "params": {"multiplier": "fp16", "accumulator_adder": "fp32 (as sim/mac_kernels.cpp)"}})
    mac["int8_horowitz"] = lit("int8_mul", "int32_add")
    mac["int8_horowitz"].update({"source": "literature",
                                 "params": {"multiplier": "int8", "accumulator_adder": "int32"},
                                 "use": "cross-check of int8 only; Aladdin's multiplier is ~4x Horowitz's"})

    # ---- PE registers (weight-stationary PE: input, weight, partial sum), per MAC.
    reg = AladdinRegister(tech_node=t, width=1)
    reg_bit = comp(reg, reg.read().energy)
    pe_bits = {"input": 8, "weight": 8, "psum": 32}
    # per MAC: input and psum registers are written and read once, the weight register is read
    rbit_pj = reg.read().energy * 1e12
    wbit_pj = reg.write().energy * 1e12
    pe_energy = (pe_bits["input"] + pe_bits["psum"]) * (rbit_pj + wbit_pj) + pe_bits["weight"] * rbit_pj
    n_bits = sum(pe_bits.values())
    pe_regs = {"energy_pj_per_mac": sig(pe_energy), "area_um2": sig(reg.area * 1e12 * n_bits),
               "leakage_uw": sig(reg.leak_power * 1e6 * n_bits), "bits": pe_bits,
               "source": lib + " AladdinRegister (width=1), composed here",
               "composition": "input and psum registers written and read once per MAC, weight "
                              "register read once; int8 operands, int32 partial sum"}

    # ---- vector lane components (one lane = one element per cycle).
    add32 = AladdinAdder(tech_node=t, width=32)
    mul32 = AladdinMultiplier(tech_node=t, width=32)
    mul16 = AladdinMultiplier(tech_node=t, width=16)
    cmp32 = AladdinComparator(tech_node=t, width=32)
    reg32 = AladdinRegister(tech_node=t, width=32)
    vector = {
        "int32_add": dict(comp(add32, add32.add().energy), source=lib + " AladdinAdder", params={"width": 32}),
        "int32_mul": dict(comp(mul32, mul32.multiply().energy), source=lib + " AladdinMultiplier", params={"width": 32}),
        "int16_mul": dict(comp(mul16, mul16.multiply().energy), source=lib + " AladdinMultiplier", params={"width": 16}),
        "int32_compare": dict(comp(cmp32, cmp32.compare().energy), source=lib + " AladdinComparator", params={"width": 32}),
        "register_32b": dict(comp(reg32, reg32.read().energy + reg32.write().energy), source=lib + " AladdinRegister",
                             params={"width": 32}, note="energy_pj = one write + one read of 32 bits"),
        "fp32_add": dict(lit("fp32_add"), source="literature"),
        "fp32_mul": dict(lit("fp32_mul"), source="literature"),
        "fp16_add": dict(lit("fp16_add"), source="literature"),
        "fp16_mul": dict(lit("fp16_mul"), source="literature"),
    }
    # An int8 requantising lane: bias add, fixed-point multiply, clamp (2 compares), and an
    # input and output register. Composed here from the components above.
    lane_e = (add32.add().energy + mul32.multiply().energy + 2 * cmp32.compare().energy
              + 2 * (reg32.read().energy + reg32.write().energy))
    lane_area = add32.area + mul32.area + 2 * cmp32.area + 2 * reg32.area
    lane_leak = add32.leak_power + mul32.leak_power + 2 * cmp32.leak_power + 2 * reg32.leak_power
    vector["int_lane_requant"] = {
        "energy_pj": sig(lane_e * 1e12), "area_um2": sig(lane_area * 1e12), "leakage_uw": sig(lane_leak * 1e6),
        "source": lib + " Aladdin components, composed here",
        "composition": "int32_add + int32_mul + 2 x int32_compare + 2 x register_32b (write+read) per element",
    }
    # fp lane: fp32 add + fp32 mul per element (activation/softmax arithmetic), literature.
    vector["fp_lane_fma"] = dict(lit("fp32_mul", "fp32_add"), source="literature",
                                 composition="fp32_mul + fp32_add per element")

    # ---- DMA channel: address generator + staging register of the data width.
    # The address generator is hwcomponents-library's own SmartBufferSRAM composition
    # (address register + delta register + adder); we run it once per beat of `width` bytes.
    dma = []
    for w in PORT_BYTES:
        a_bits = 32
        areg = AladdinRegister(tech_node=t, width=a_bits)
        dreg = AladdinRegister(tech_node=t, width=a_bits)
        adder = AladdinAdder(tech_node=t, width=a_bits)
        stage = AladdinRegister(tech_node=t, width=w * 8)
        e_beat = (areg.read().energy + areg.write().energy + dreg.read().energy + adder.add().energy
                  + stage.write().energy + stage.read().energy)
        area = areg.area + dreg.area + adder.area + stage.area
        leak = areg.leak_power + dreg.leak_power + adder.leak_power + stage.leak_power
        dma.append({"width_bytes": w, "energy_pj_per_byte": sig(e_beat * 1e12 / w),
                    "area_um2": sig(area * 1e12), "leakage_uw": sig(leak * 1e6)})
    wire = Wire(length=1e-3, tech_node=t)
    wire_row = {"energy_pj_per_bit_mm": sig(wire.read().energy * 1e12),
                "source": lib + " Wire",
                "params": {"length_m": 1e-3, "capacitance_per_m": wire.capacitance_per_m,
                           "voltage_v": wire.voltage},
                "note": "C*V^2 with the model's default 0.2 fF/um and 0.7 V; the model does not scale "
                        "wire capacitance with the node, so this is the same at every node"}
    return {"aladdin_prov": aladdin_prov, "lit_prov": lit_prov, "mac": mac, "pe_registers": pe_regs,
            "register_bit": reg_bit, "vector": vector, "dma": dma, "wire": wire_row}


def dram_table() -> dict:
    import hwcomponents_cacti.hwcomponents_cacti as hc

    ver = md.version("hwcomponents-cacti")
    rows = []
    for name, cls in [("LPDDR4", hc.LPDDR4), ("HBM2", hc.HBM2), ("HBM3", hc.HBM3), ("HBM4", hc.HBM4),
                      ("DDR3", hc.DDR3), ("LPDDR", hc.LPDDR)]:
        d = cls()
        e = d.read().energy  # J per access of `width` bits
        rows.append({"technology": name, "energy_pj_per_bit": sig(e * 1e12 / d.width),
                     "source": f"hwcomponents-cacti {ver} {cls.__name__}",
                     "params": {"width_bits": d.width},
                     "note": "fixed pJ/bit per type (zero area and leakage) typed into the package; "
                             "its comments cite Wikipedia, Malladi et al. ISCA 2012, Chatterjee "
                             "et al. MICRO 2017 and trade articles"})
    for r in DRAM_LITERATURE:
        rows.append({"technology": r["technology"], "energy_pj_per_bit": r["energy_pj_per_bit"],
                     "range_pj_per_bit": r["range_pj_per_bit"], "source": "literature",
                     "citation": r["citation"], "scope": r["scope"]})
    for tech, why in DRAM_MISSING.items():
        rows.append({"technology": tech, "energy_pj_per_bit": None, "source": "none", "note": why})
    return {"rows": rows}


# ============================================================================= YAML output
def yq(s) -> str:
    """A YAML scalar."""
    if s is None:
        return "null"
    if isinstance(s, bool):
        return "true" if s else "false"
    if isinstance(s, int):
        return str(s)
    if isinstance(s, float):
        if s == int(s) and abs(s) < 1e15:
            return f"{s:.1f}"
        return repr(s)
    text = str(s)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def yflow(v) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {yflow(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(yflow(x) for x in v) + "]"
    return yq(v)


def yblock(d: dict, indent: int = 0, flow_depth: int = 99) -> list[str]:
    """Block mapping; nested dicts become blocks, lists of dicts become block sequences of
    flow mappings, other lists are flow sequences."""
    pad = " " * indent
    out = []
    for k, v in d.items():
        if isinstance(v, dict) and v and flow_depth > 0:
            out.append(f"{pad}{k}:")
            out.extend(yblock(v, indent + 2, flow_depth - 1))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            out.append(f"{pad}{k}:")
            for x in v:
                out.append(f"{pad}  - {yflow(x)}")
        else:
            out.append(f"{pad}{k}: {yflow(v)}")
    return out


def write_node_file(path: str, node: int, header: dict, sram: dict, logic: dict, dram: dict,
                    not_modelled: dict, checks: dict) -> None:
    lines = [
        f"# npusim technology table, {node} nm. Generated by scripts/make_tech_tables.py: do not edit.",
        "# Format: configs/tech/README.md. Energies in pJ, leakage in mW (SRAM) or uW (logic),",
        "# areas in mm^2 (SRAM) or um^2 (logic).",
    ]
    lines += yblock(header, 0, flow_depth=1)
    lines.append("")
    lines.append("sram:")
    lines += yblock({k: v for k, v in sram.items() if k != "series"}, 2, flow_depth=1)
    lines.append("  series:")
    for s in sram["series"]:
        lines.append(f"    - {{rw_ports: {s['rw_ports']}, banks: {s['banks']}, port_bytes: {s['port_bytes']},")
        for f in SRAM_FIELDS:
            lines.append(f"       {f}: {yflow(s[f])},")
        lines.append(f"       origin: {yq(s['origin'])}}}")
    lines.append("")
    lines.append("mac:")
    lines += yblock(logic["mac_section"], 2, flow_depth=1)
    lines.append("")
    lines.append("vector:")
    lines += yblock(logic["vector_section"], 2, flow_depth=1)
    lines.append("")
    lines.append("dma:")
    lines += yblock(logic["dma_section"], 2, flow_depth=1)
    lines.append("")
    lines.append("dram:")
    lines += yblock(dram, 2, flow_depth=1)
    lines.append("")
    lines.append("not_modelled:")
    lines += yblock(not_modelled, 2, flow_depth=0)
    lines.append("")
    lines.append("checks:")
    lines += yblock(checks, 2, flow_depth=1)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def verify_file(path: str, sram: dict) -> None:
    """Re-read the file with PyYAML and compare the SRAM grid with what was computed."""
    import yaml

    doc = yaml.safe_load(open(path))
    assert doc["format"] == "npusim-tech-table", path
    got = doc["sram"]["series"]
    assert len(got) == len(sram["series"]), path
    for a, b in zip(got, sram["series"]):
        for f in SRAM_FIELDS + ["rw_ports", "banks", "port_bytes", "origin"]:
            assert a[f] == b[f], (path, f, a, b)
        n = len(doc["sram"]["axes"]["capacity_kib"])
        assert all(len(a[f]) == n for f in SRAM_FIELDS), path


# ============================================================================= main
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="configs/tech", help="output folder (default configs/tech)")
    ap.add_argument("--nodes", default=",".join(map(str, NODES_NM)), help="nodes in nm, e.g. 7,22,45")
    ap.add_argument("--jobs", type=int, default=1, help="parallel CACTI workers (default 1)")
    ap.add_argument("--quick", action="store_true", help="capacities 16/256/4096 KiB only (a smoke run)")
    args = ap.parse_args()

    t_start = time.time()
    log = lambda msg: print(msg, flush=True)  # noqa: E731
    nodes = [int(n) for n in args.nodes.split(",")]
    caps = [16, 256, 4096] if args.quick else CAPACITIES_KIB
    check_cacti_binary()
    vers = versions()
    cacti_cfg = cacti_defaults()
    native = supported_cacti_nodes()
    gxx = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    log(f"make_tech_tables: nodes {nodes}, {len(caps)} capacities x {len(RW_PORTS)} ports x "
        f"{len(BANKS)} banks x {len(PORT_BYTES)} widths, packages {vers}")

    # Compute every point at all nodes; order nodes so CACTI's 22 nm run is cached before the
    # nodes scaled from it.
    order = sorted(nodes, key=lambda n: (n not in native, n))
    sram_results = run_sram(order, caps, args.jobs, log)
    t_sram = time.time() - t_start
    dram = dram_table()
    os.makedirs(args.out, exist_ok=True)
    today = dt.date.today().isoformat()
    summary = []

    for node in nodes:
        series, violations, failures = sram_series(sram_results, node, caps)
        if node in native:
            how = f"CACTI run at {node} nm"
        else:
            base = min(native) if node < min(native) else max(native)
            how = (f"CACTI run at {base} nm, scaled by hwcomponents-cacti to {node} nm: energy x "
                   f"({node}/{base})^0.5, area and access/cycle time x {node}/{base}, leakage x "
                   f"({node}/{base})^0.5 x 0.79 (FinFET, Parvais et al. VLSI-TSA 2009)")
        sram = {
            "provenance": {
                "model": f"hwcomponents-cacti {vers['hwcomponents-cacti']} SRAM (CACTI 7.0 source shipped "
                         "in the wheel, rebuilt by scripts/make_tech_tables.sh: `make opt` plus -O2)",
                "cacti_binary": f"hwcomponents_cacti/cacti/cacti built with {gxx}",
                "tech": how,
                "cacti_native_nodes_nm": native,
                "params": {"tech_node_m": node_m(node), "width_bits": "8 x port_bytes",
                           "size_bits": "8192 x capacity_kib", "n_rw_ports": "rw_ports",
                           "n_banks": "banks", "cache_type": "ram"},
                "cacti_config": cacti_cfg,
                "read_energy": "CACTI dynamic read energy of one port_bytes access / port_bytes",
                "leakage": "CACTI standby leakage per bank (one bank + the routing H-tree) x banks, "
                           "as hwcomponents-cacti computes it",
                "area": "CACTI total area, all banks and the routing between them",
            },
            "axes": {"capacity_kib": caps, "rw_ports": RW_PORTS, "banks": BANKS, "port_bytes": PORT_BYTES},
            "units": {"read_pj_per_byte": "pJ/B", "write_pj_per_byte": "pJ/B", "leakage_mw": "mW",
                      "area_mm2": "mm^2", "access_ns": "ns", "cycle_ns": "ns"},
            "origin_codes": {"c": "CACTI ran at these parameters",
                             "s": "fewer than 64 rows per bank: hwcomponents-cacti ran CACTI at 64 rows "
                                  "per bank and scaled energy by (rows/64/banks)^0.78, area and leakage "
                                  "linearly; use with care",
                             "x": "CACTI failed: values null, reason in checks.sram_failures"},
            "series": series,
        }
        lg = logic_tables(node)
        lg["mac_section"] = {
            "provenance": {"aladdin": lg["aladdin_prov"], "literature": lg["lit_prov"]},
            "array_scaling": "none: the models have no array-size term; figures are per MAC unit, "
                             "multiply by rows x cols",
            "units": {"energy_pj": "pJ per MAC", "area_um2": "um^2 per MAC unit", "leakage_uw": "uW per MAC unit"},
            "units_per_mac": lg["mac"],
            "pe_registers": lg["pe_registers"],
        }
        lg["vector_section"] = {
            "provenance": {"aladdin": lg["aladdin_prov"], "literature": lg["lit_prov"]},
            "units": {"energy_pj": "pJ per operation on one element", "area_um2": "um^2 per lane",
                      "leakage_uw": "uW per lane"},
            "components": lg["vector"],
        }
        lg["dma_section"] = {
            "provenance": {
                "aladdin": lg["aladdin_prov"],
                "composition": "per beat of width_bytes: address generator (32-bit address and delta "
                               "registers + 32-bit adder, the composition of hwcomponents-library's "
                               "SmartBufferSRAM) + a staging register of width_bytes written and read; "
                               "excludes the SRAM and DDR accesses themselves and the wires",
            },
            "units": {"energy_pj_per_byte": "pJ/B moved", "area_um2": "um^2 per channel",
                      "leakage_uw": "uW per channel"},
            "channel": lg["dma"],
            "wire": lg["wire"],
        }
        dram_section = {
            "provenance": {"note": "DRAM energy does not depend on the NPU's logic node; the same in "
                                   "every file. hwcomponents-cacti's DRAM classes are fixed pJ/bit "
                                   "constants, not CACTI runs"},
            "units": {"energy_pj_per_bit": "pJ per bit read or written at the DRAM, interface included"},
            "technologies": dram["rows"],
        }
        not_modelled = {
            "clock_tree": "no model in these packages: leave in the config's static_mw",
            "glue_logic_leakage": "no model (controller, queues, interconnect); Aladdin registers have zero leakage",
            "dram_background_and_refresh": "the DRAM figures are per bit moved; no standby, refresh or "
                                           "power-down model",
            "sram_hp_cells": "hwcomponents-cacti fixes itrs-lstp cells and a leakage-weighted design "
                             "objective (default_cfg.cfg); high-performance cells would leak far more",
        }
        checks = {
            "sram_monotonic_over_capacity": {
                "fields": MONOTONE_FIELDS,
                "rule": "at fixed rw_ports, banks, port_bytes each field is non-decreasing in capacity_kib",
                "violations": len(violations),
            },
            "sram_violations": violations,
            "sram_failures": failures,
        }
        header = {
            "format": "npusim-tech-table",
            "format_version": 1,
            "node_nm": node,
            "generated": {
                "by": "scripts/make_tech_tables.py" + (" --quick" if args.quick else ""),
                "regenerate": "bash scripts/make_tech_tables.sh (about 12 minutes on 2 cores)",
                "date": today,
                "python": platform.python_version(),
                "packages": vers,
                "host": f"{platform.system()} {platform.machine()}, glibc {platform.libc_ver()[1]}",
            },
        }
        path = os.path.join(args.out, f"{node}nm.yaml")
        write_node_file(path, node, header, sram, lg, dram_section, not_modelled, checks)
        verify_file(path, sram)
        summary.append((node, path, len(violations), len(failures), series, lg))
        log(f"wrote {path}: {len(series)} SRAM series, {len(failures)} failed points, "
            f"{len(violations)} monotonicity violations")
        for v in violations[:8]:
            log(f"  non-monotone {v['field']} rw{v['rw_ports']} b{v['banks']} w{v['port_bytes']}: "
                f"{v['from_kib']} KiB {v['from']} -> {v['to_kib']} KiB {v['to']} (-{v['drop_pct']}%)")
        for fl in failures[:8]:
            log(f"  failed {fl}")

    # Sanity printout: smallest node, 8 banks x 32 B, one port.
    node, path, _, _, series, lg = min(summary, key=lambda s: s[0])
    s = next(x for x in series if x["rw_ports"] == 1 and x["banks"] == 8 and x["port_bytes"] == 32)
    log(f"\nsanity at {node} nm, SRAM 8 banks x 32 B port, 1 rw port:")
    log(f"  {'KiB':>6} {'read pJ/B':>10} {'pJ/bit':>7} {'write pJ/B':>11} {'leak mW':>9} {'mm^2':>8}")
    for c in (64, 1024, 4096, 16384):
        if c in caps:
            i = caps.index(c)
            rd = s["read_pj_per_byte"][i]
            log(f"  {c:>6} {rd:>10} {sig(rd / 8, 3) if rd else None:>7} {s['write_pj_per_byte'][i]:>11} "
                f"{s['leakage_mw'][i]:>9} {s['area_mm2'][i]:>8}")
    for k in ("int8", "int4", "fp16", "int8_horowitz"):
        m = lg["mac"][k]
        log(f"  MAC {k:<14} {m['energy_pj']} pJ  {m['area_um2']} um^2  leak {m['leakage_uw']} uW")
    for r in dram["rows"]:
        log(f"  DRAM {r['technology']:<8} {r['energy_pj_per_bit']} pJ/bit ({r['source'].split(' ')[0]})")
    log(f"\nSRAM grid {t_sram:.0f} s, total {time.time() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
