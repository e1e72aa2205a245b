"""Bad input gives one clear line naming the file, field or node, and a non-zero exit."""
import re

import pytest

from conftest import assert_one_line_error

GOOD_LOAD = "load channel=0 ddr_addr=0x1000 sram_addr=0 len0=64\nhalt\n"


def test_unknown_mnemonic_names_line_and_column(npusim, tmp_path):
    src = tmp_path / "bad.npuasm"
    src.write_text("# comment\n  halt\n  lod channel=0\n")
    r = npusim("asm", src, "-o", tmp_path / "x.npuprog")
    assert_one_line_error(r, "bad.npuasm:3:3", "lod")


def test_field_out_of_range(npusim, tmp_path):
    src = tmp_path / "range.npuasm"
    src.write_text("load channel=0 ddr_addr=0x1000 sram_addr=0 len0=70000\nhalt\n")
    r = npusim("asm", src, "-o", tmp_path / "x.npuprog")
    assert_one_line_error(r, "range.npuasm:1:", "len0", "70000")


@pytest.mark.parametrize("cut", [0, 7, 20, 100, -1])
def test_truncated_binary(npusim, tmp_path, cut):
    src = tmp_path / "ok.npuasm"
    src.write_text(GOOD_LOAD)
    prog = tmp_path / "ok.npuprog"
    assert npusim("asm", src, "-o", prog).code == 0
    data = prog.read_bytes()
    bad = tmp_path / "cut.npuprog"
    bad.write_bytes(data[:cut] if cut >= 0 else data[:-1])
    r = npusim("disasm", bad)
    assert_one_line_error(r, "cut.npuprog")


def test_corrupted_binary(npusim, tmp_path):
    src = tmp_path / "ok.npuasm"
    src.write_text(GOOD_LOAD)
    prog = tmp_path / "ok.npuprog"
    assert npusim("asm", src, "-o", prog).code == 0
    data = bytearray(prog.read_bytes())
    data[len(data) - 5] ^= 0x40
    bad = tmp_path / "flip.npuprog"
    bad.write_bytes(bytes(data))
    assert_one_line_error(npusim("disasm", bad), "flip.npuprog")


def test_sram_address_beyond_capacity(npusim, tmp_path, root):
    src = tmp_path / "big.npuasm"
    # tiny-8x8 has a 64 KiB scratchpad
    src.write_text("load channel=0 ddr_addr=0x1000 sram_addr=0xFFF000 len0=4096\nhalt\n")
    r = npusim("sim", src, "--config", root / "configs/tiny-8x8.yaml")
    assert_one_line_error(r, "sram_addr", "capacity")


def write_config(tmp_path, root, edit):
    text = (root / "configs/tiny-8x8.yaml").read_text()
    path = tmp_path / "cfg.yaml"
    path.write_text(edit(text))
    return path


def test_yaml_missing_key(npusim, tmp_path, root):
    cfg = write_config(tmp_path, root, lambda t: re.sub(r"(?m)^\s*bandwidth_gbps:.*\n", "", t))
    r = npusim("sim", root / "examples/gemm_int8_double_buffered.npuasm", "--config", cfg)
    assert_one_line_error(r, "cfg.yaml", "ddr.bandwidth_gbps")


def test_yaml_negative_size(npusim, tmp_path, root):
    cfg = write_config(tmp_path, root, lambda t: re.sub(r"capacity_kib:\s*\d+", "capacity_kib: -4", t))
    r = npusim("sim", root / "examples/gemm_int8_double_buffered.npuasm", "--config", cfg)
    assert_one_line_error(r, "cfg.yaml", "sram.capacity_kib", "-4")


def test_yaml_wrong_type(npusim, tmp_path, root):
    cfg = write_config(tmp_path, root, lambda t: re.sub(r"rows:\s*\d+", "rows: eight", t))
    r = npusim("sim", root / "examples/gemm_int8_double_buffered.npuasm", "--config", cfg)
    assert_one_line_error(r, "cfg.yaml", "mac_array.rows", "eight")


def test_missing_config_option(npusim, root):
    r = npusim("sim", root / "examples/gemm_int8_double_buffered.npuasm")
    assert r.code == 2
    assert "config" in r.err


def test_unknown_command(npusim):
    r = npusim("simulate")
    assert r.code == 2 and "unknown command" in r.err


def test_missing_program_file(npusim, root):
    r = npusim("sim", "/nonexistent/x.npuprog", "--config", root / "configs/default.yaml")
    assert_one_line_error(r, "/nonexistent/x.npuprog")
