"""`npusim compile --explain` on several engines: each conv/gemm layer's mapping line says how
the layer is shared (by rows, by output channels, or whole on one engine) and the estimated
cycles of the alternatives behind the choice."""
import json
import re


def config_with_engines(root, tmp_path, engines):
    config = tmp_path / f"default-x{engines}.yaml"
    config.write_text((root / "configs/default.yaml").read_text() + f"\nengines:\n  count: {engines}\n")
    return config


def mappings(out):
    return {m.group(1): m.group(2) for m in re.finditer(r"^mapping (\S+): (.*)$", out, re.M)}


def program_estimates(line):
    """The whole-program estimates a mapping line ends with, the chosen program first:
    {"by DDR traffic": 346082, "by layer prices": 722356, ..., "engine 0 alone": 705061}."""
    tail = re.search(r"; engines (by [^:;]+|engine 0 alone): est (\d+) cycles((?:, [^,;]+ \d+)*)$", line)
    assert tail, line
    programs = {tail.group(1): int(tail.group(2))}
    for other in re.finditer(r", ([^,;]+) (\d+)", tail.group(3)):
        programs[other.group(1)] = int(other.group(2))
    return programs


def test_explain_names_each_layers_split_and_the_estimates_behind_it(npusim, root, tmp_path, generated):
    config = config_with_engines(root, tmp_path, 4)
    r = npusim("compile", generated("resnet18"), "-c", config, "-o", tmp_path / "m.npuprog", "--explain")
    assert r.code == 0, r.err
    layers = mappings(r.out)
    convs = {name: line for name, line in layers.items() if name.endswith("_conv")}
    assert convs
    for name, line in convs.items():
        split = re.search(r"; (4 engines by (rows|output channels) [\d+]+|1 engine, whole) \((fewest DDR bytes; )?"
                          r"est cycles whole \d+(, by (rows|output channels) \d+)+(; rows overlap by the next layer's halo)?\)", line)
        assert split, f"{name}: {line}"
    # The stem (112 rows of 3x3 work) pays to split.
    assert "4 engines by " in convs["stem_conv"]
    # Pools split by rows as well (their rows are whole alignment units here); layers no family
    # splits say so.
    assert "4 engines by rows " in layers["stem_pool"]
    assert "1 engine, whole (rowwise layers do not split)" in layers["gap"]
    # A layer split by output channels reads its whole input on every engine: multicast, read once.
    by_channels = [line for line in convs.values() if "4 engines by output channels" in line]
    assert by_channels
    for line in by_channels:
        assert re.search(r"; \d+ load\(s\) multicast to 4 engines \([\d.]+ (KiB|B) read once\)", line), line


def test_explain_on_one_engine_is_unchanged(npusim, root, tmp_path, generated):
    r = npusim("compile", generated("resnet18"), "-c", root / "configs/default.yaml",
               "-o", tmp_path / "m.npuprog", "--explain")
    assert r.code == 0, r.err
    for line in mappings(r.out).values():
        assert "; 1 engine" in line and "whole" not in line and "engines by" not in line


def test_forced_splits_say_forced(npusim, root, tmp_path):
    config = config_with_engines(root, tmp_path, 2)
    r = npusim("compile", root / "models/tiny_convnet.onnx", "-c", config, "-o", tmp_path / "m.npuprog", "--explain",
               "--engine-split", "channels")
    assert r.code == 0, r.err
    assert any("2 engines by output channels" in line and "forced" in line for line in mappings(r.out).values())


def test_an_unknown_split_mode_is_one_line(npusim, root, tmp_path):
    from conftest import assert_one_line_error
    r = npusim("compile", root / "models/tiny_convnet.onnx", "-c", root / "configs/default.yaml",
               "-o", tmp_path / "m.npuprog", "--engine-split", "diagonal")
    assert_one_line_error(r, "--engine-split", "diagonal")


def test_expand_rows_overlap_so_the_depthwise_conv_reads_them_on_chip(npusim, root, tmp_path, generated):
    """MobileNetV2 on 4 engines: the expand conv before a 3x3 depthwise conv computes the halo
    rows its neighbours' parts need as well (the parts' rows add up to more than the layer's),
    so the depthwise conv reads its input on chip (no spill bytes), and the whole program
    (chosen by DDR traffic) is far faster than engine 0 alone."""
    config = config_with_engines(root, tmp_path, 4)
    prog, report = tmp_path / "m.npuprog", tmp_path / "r.json"
    r = npusim("compile", generated("mobilenetv2"), "-c", config, "-o", prog, "--explain")
    assert r.code == 0, r.err
    expand = mappings(r.out)["ir1_expand_conv"]
    parts = re.search(r"; 4 engines by rows ([\d+]+) \(", expand)
    assert parts and "rows overlap by the next layer's halo" in expand, expand
    assert sum(int(p) for p in parts.group(1).split("+")) > 112
    programs = program_estimates(expand)
    chosen = next(iter(programs))
    assert chosen.startswith("by DDR traffic"), expand
    traffic, alone = programs[chosen], programs["engine 0 alone"]
    assert traffic == min(programs.values()) and traffic * 1.6 < alone
    r = npusim("run", prog, "-c", config, "--timing-only", "-q", "--json", report)
    assert r.code == 0, r.err
    run = json.loads(report.read_text())
    assert run["cycles"] == traffic
    layers = {layer["name"]: layer for layer in run["layers"]}
    assert layers["ir1_dw_conv"]["ddr_spill_bytes"] == 0
    assert layers["ir1_expand_conv"]["ddr_spill_bytes"] > 0  # its 16-channel input crosses engines instead


def test_squeezenet_fp16_splits_on_six_engines_every_way(npusim, root, tmp_path):
    """SqueezeNet's 31-wide fire modules on Lunar Lake's six engines in FP16: rows of 31 x 16
    channels are not whole alignment units, so no part may start inside another's rows on chip
    (no overlapping rows, no pool split); every split mode compiles, and each program's estimate
    is its run's cycles."""
    config = root / "configs/intel-npu-lunar-lake.yaml"
    for mode in ("auto", "layer-price", "traffic", "rows", "channels"):
        prog, summary, report = tmp_path / f"{mode}.npuprog", tmp_path / f"{mode}.json", tmp_path / f"{mode}-run.json"
        r = npusim("compile", root / "models/exported/squeezenet1_1.onnx", "-c", config, "--precision", "fp16",
                   "-o", prog, "--engine-split", mode, "--json", summary, "-q")
        assert r.code == 0, (mode, r.err)
        r = npusim("run", prog, "-c", config, "--timing-only", "-q", "--json", report)
        assert r.code == 0, (mode, r.err)
        assert json.loads(summary.read_text())["estimated_cycles"] == json.loads(report.read_text())["cycles"], mode


def test_row_parts_of_unequal_height_load_each_weight_byte_once(npusim, root, tmp_path, generated):
    """ResNet-50's 14-row stage on 4 engines is cut 3+4+3+4: every part plans its weight loads as
    the widest part does (the same blocks in the same order), so each load multicasts and the
    layer reads its weights from DDR once, not once per engine."""
    config = config_with_engines(root, tmp_path, 4)
    prog, report = tmp_path / "m.npuprog", tmp_path / "m.json"
    r = npusim("compile", generated("resnet50"), "-c", config, "-o", prog, "--explain", "--engine-split", "traffic")
    assert r.code == 0, r.err
    layers = mappings(r.out)
    r = npusim("run", prog, "-c", config, "--timing-only", "-q", "--json", report)
    assert r.code == 0, r.err
    unequal = 0
    for layer in json.loads(report.read_text())["layers"]:
        split = re.search(r"4 engines by rows ([\d+]+)", layers.get(layer["name"], ""))
        if not split or len(set(split.group(1).split("+"))) == 1:
            continue
        unequal += 1
        weights = [t for t in layer["ddr_traffic"] if t["kind"] == "weights"]
        assert weights, layer["name"]
        for t in weights:
            assert t["bytes_read"] == t["size_bytes"], (layer["name"], t)
        assert "multicast to 4 engines" in layers[layer["name"]], layers[layer["name"]]
    assert unequal >= 18  # stage 3's six blocks at least


def test_row_parts_priced_with_their_weights_read_once(npusim, root, tmp_path, generated):
    """With multicast loads a row part's weights cross the bus once for all engines, so it is
    priced at (A/k + W) / (A + W) of the bandwidth instead of a k-th: on ResNet-50 over 4 engines
    the program split by those prices is the fastest of the candidates, ahead of the one priced
    as if every engine read its own copy, and the run takes the cycles the compiler estimated."""
    config = config_with_engines(root, tmp_path, 4)
    prog, report = tmp_path / "m.npuprog", tmp_path / "r.json"
    r = npusim("compile", generated("resnet50"), "-c", config, "-o", prog, "--explain")
    assert r.code == 0, r.err
    programs = program_estimates(mappings(r.out)["s3b2_b_conv"])
    assert next(iter(programs)) == "by layer prices", programs
    priced = programs["by layer prices"]
    assert priced == min(programs.values()) and priced < programs["by layer prices without multicast"]
    assert priced * 2 < programs["engine 0 alone"]
    r = npusim("run", prog, "-c", config, "--timing-only", "-q", "--json", report)
    assert r.code == 0, r.err
    assert json.loads(report.read_text())["cycles"] == priced
