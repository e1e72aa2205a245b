"""The package as users get it: pyproject.toml is valid and names real entry points (the
full `pip install .` is checked by hand, see apps/python/README.md: it would compile the
tree a second time), `python3 -m npusim` dispatches, the module exports sc_main."""
import importlib
import os
import pathlib
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_DIR = os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python"))
sys.path.insert(0, PACKAGE_DIR)
import npusim  # noqa: E402


def test_pyproject_names_real_entry_points():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["build-system"]["build-backend"] == "scikit_build_core.build"
    assert (ROOT / project["project"]["readme"]).is_file()
    skbuild = project["tool"]["scikit-build"]
    assert skbuild["build"]["targets"] == ["_core"]
    assert skbuild["install"]["components"] == ["python"]
    for name, target in project["project"]["scripts"].items():
        module, func = target.split(":")
        assert callable(getattr(importlib.import_module(module), func)), name
    cmake = (ROOT / "apps" / "python" / "CMakeLists.txt").read_text()
    assert "COMPONENT python" in cmake and "pybind11_add_module(_core" in cmake


def test_python_dash_m_dispatches():
    env = {**os.environ, "PYTHONPATH": PACKAGE_DIR}
    for args, needle in ((["sweep", "--help"], "resumes"), (["plot", "--help"], "Pareto"), ([], "usage")):
        proc = subprocess.run([sys.executable, "-m", "npusim", *args], capture_output=True, text=True, env=env,
                              timeout=60)
        assert needle in proc.stdout, (args, proc.stdout, proc.stderr)


def test_extension_exports_sc_main_for_libsystemc():
    symbols = subprocess.run(["nm", "-D", "--defined-only", npusim._core.__file__], capture_output=True, text=True)
    assert any(line.split()[-1] == "sc_main" for line in symbols.stdout.splitlines())
