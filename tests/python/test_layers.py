"""The folders are layers: every `#include "folder/..."` and every CMake link between the
libraries points down the order below, the import graph has no circle, programs (main,
sc_main, a pybind11 module) live only in apps/, report/ runs nothing, and nothing above the
runtime builds its own run path around the engine (runtime/engine.h)."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Layer order (README.md "Layout"; the design brief's table), each folder with the folders it
# may use directly; it may also use whatever those may use. Every name a folder lists comes
# before it, so the order has no circle by construction. Siblings stay apart: sim/ and
# compiler/ share only isa, hwconfig and the cost model; calibrate/ and backends/ do not use
# each other.
LAYERS = [
    ("isa", []),
    ("techmodel", []),
    ("hwconfig", ["techmodel"]),
    ("container", ["isa"]),
    ("costmodel", ["isa", "hwconfig"]),
    ("sim", ["isa", "hwconfig", "costmodel"]),
    ("compiler", ["isa", "hwconfig", "costmodel", "container"]),
    ("runtime", ["compiler", "sim"]),
    ("report", ["runtime"]),  # runtime's result structs; it only formats (test below)
    ("backends", ["runtime", "report"]),  # backends/python_bridge too: see its README
    ("calibrate", ["runtime", "report"]),
    ("apps", ["backends", "calibrate"]),
]
ORDER = [name for name, _ in LAYERS]
SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".def", ".inc"}


def allowed_uses():
    allowed = {}
    for name, direct in LAYERS:
        for used in direct:
            assert ORDER.index(used) < ORDER.index(name), f"{name} lists {used}, which comes after it"
        allowed[name] = set(direct).union(*(allowed[used] for used in direct))
    return allowed


def sources(folder):
    return sorted(p for p in (ROOT / folder).rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file())


def code_only(text):
    """C++ text without comments and string literals (so names in messages do not count)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'R"([^(]*)\(.*?\)\1"', '""', text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])'", "''", text)
    return re.sub(r"//[^\n]*", " ", text)


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def include_arrows():
    """[(from folder, to folder, 'file:line: #include ...')] for every quoted include."""
    arrows = []
    for folder in ORDER:
        for path in sources(folder):
            text = path.read_text(errors="replace")
            for m in INCLUDE.finditer(text):
                target = m.group(1).split("/")[0]
                line = text.count("\n", 0, m.start()) + 1
                arrows.append((folder, target, f"{path.relative_to(ROOT)}:{line}: #include \"{m.group(1)}\""))
    return arrows


def cmake_commands(text):
    text = re.sub(r"#[^\n]*", "", text)
    return re.finditer(r"\b(add_library|add_executable|pybind11_add_module|target_link_libraries|add_dependencies)"
                       r"\s*\(([^)]*)\)", text)


def link_arrows():
    """[(from folder, to folder, 'CMakeLists.txt: target -> target')] for every link or build
    dependency between targets defined in the layer folders."""
    owner, uses = {}, []
    for folder in ORDER:
        for cmake in sorted((ROOT / folder).rglob("CMakeLists.txt")):
            for m in cmake_commands(cmake.read_text()):
                words = m.group(2).split()
                if not words:
                    continue
                if m.group(1) in ("add_library", "add_executable", "pybind11_add_module"):
                    owner[words[0]] = folder
                    objects = re.findall(r"\$<TARGET_OBJECTS:([\w:]+)>", m.group(2))
                    uses += [(cmake, folder, words[0], o) for o in objects]
                else:
                    uses += [(cmake, folder, words[0], w) for w in words[1:]]
    return [(folder, owner[used], f"{cmake.relative_to(ROOT)}: {target} -> {used}")
            for cmake, folder, target, used in uses if used in owner]


def test_every_include_and_link_points_down_the_layers():
    allowed = allowed_uses()
    wrong = [where for source, target, where in include_arrows() + link_arrows()
             if target in allowed and target != source and target not in allowed[source]]
    assert not wrong, "arrows against the layer order (tests/python/test_layers.py LAYERS):\n" + "\n".join(wrong)


def test_includes_are_root_relative_into_a_layer():
    stray = [where for _, target, where in include_arrows() if target not in ORDER]
    assert not stray, "includes must name a layer folder from the repository root:\n" + "\n".join(stray)


def find_cycle(graph):
    """One circle of `graph` ({node: {node}}) as a list of nodes, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_import_graph_has_no_circle():
    graph = {}
    for source, target, _ in include_arrows() + link_arrows():
        if target != source:
            graph.setdefault(source, set()).add(target)
    cycle = find_cycle(graph)
    assert cycle is None, "circle between folders: " + " -> ".join(cycle)


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}}) is None


PROGRAM = re.compile(r"\bint\s+(sc_)?main\s*\(|\bPYBIND11_MODULE\s*\(")


@pytest.mark.parametrize("folder", [f for f in ORDER if f != "apps"])
def test_programs_live_only_in_apps(folder):
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in sources(folder)
             for m in PROGRAM.finditer(code_only(p.read_text(errors="replace")))]
    assert not found, f"a main() or Python module outside apps/:\n" + "\n".join(found)


def occurrences(folders, pattern, allowed=()):
    found = []
    for folder in folders:
        for path in sources(folder):
            rel = str(path.relative_to(ROOT))
            if rel in allowed:
                continue
            code = code_only(path.read_text(errors="replace"))
            found += [f"{rel}: {m.group(0)}" for m in re.finditer(pattern, code)]
    return found


def test_report_only_formats():
    runs = r"\b(sim::)?simulate\s*\(|\bcompiler::compile\s*\(|\b(load_or_compile|compile_model|compile_and_run|" \
           r"run_stream|Session|Engine)\b"
    found = occurrences(["report"], runs)
    assert not found, "report/ compiles, places or simulates (runtime/engine.h does):\n" + "\n".join(found)


def test_apps_and_libraries_above_the_runtime_run_models_through_the_engine():
    # A Session, its options or generated inputs built by hand outside runtime/ is a second
    # run path; the engine (runtime/engine.h) is the one. `npusim sim` runs a bare program, not
    # a model: it has no session to share.
    by_hand = r"\bruntime::Session\b|\bSessionOptions\b|\brandom_input\s*\(|\bsim::simulate\s*\(|" \
              r"\bcompiler::compile\s*\("
    found = occurrences(["backends", "calibrate", "apps", "report"], by_hand, allowed={"apps/cli/cmd_sim.cpp"})
    assert not found, "a run path of its own outside runtime/engine.h:\n" + "\n".join(found)


def test_the_checks_see_an_arrow_against_the_order(tmp_path):
    # The scanners read what they should: runtime really includes the compiler, and an include
    # from runtime up into report would be caught.
    arrows = {(s, t) for s, t, _ in include_arrows()}
    assert ("runtime", "compiler") in arrows and ("apps", "runtime") in arrows
    allowed = allowed_uses()
    assert "report" not in allowed["runtime"] and "backends" not in allowed["runtime"]
    assert "compiler" not in allowed["sim"] and "sim" not in allowed["compiler"]
    assert {("apps", "backends"), ("backends", "runtime")} <= {(s, t) for s, t, _ in link_arrows()}
