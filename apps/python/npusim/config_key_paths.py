"""Config key names as sweep specs write them: full paths (mac_array.rows), a few short
aliases (rows, sram_kib, ddr_gbps) and any key name that is unique across sections
(bandwidth_gbps, lanes). The key table itself comes from the C++ schema."""
import difflib
import functools

from . import _core

ALIASES = {
    "rows": "mac_array.rows",
    "cols": "mac_array.cols",
    "dataflow": "mac_array.dataflow",
    "sram_kib": "sram.capacity_kib",
    "ddr_gbps": "ddr.bandwidth_gbps",
    "frequency_mhz": "clock.frequency_mhz",
    "clock_mhz": "clock.frequency_mhz",
    "ddr_model": "ddr.model",
    "engines": "engines.count",
}


@functools.lru_cache(maxsize=None)
def key_table():
    """{path: field dict} for every config key except `name`."""
    return {f["path"]: f for f in _core.config_keys() if f["path"] != "name"}


@functools.lru_cache(maxsize=None)
def short_names():
    """{short name: path}: the aliases plus every key name that only one section has."""
    by_leaf = {}
    for path, field in key_table().items():
        by_leaf.setdefault(field["key"], []).append(path)
    names = {leaf: paths[0] for leaf, paths in by_leaf.items() if len(paths) == 1}
    names.update(ALIASES)
    return names


class UnknownKey(ValueError):
    pass


def resolve(name):
    """The full path a spec's key name means; UnknownKey says why not, with a suggestion."""
    table = key_table()
    if name in table:
        return name
    shorts = short_names()
    if name in shorts:
        return shorts[name]
    ambiguous = [p for p in table if p.endswith("." + name)]
    if ambiguous:
        raise UnknownKey(f"ambiguous config key, write one of {', '.join(sorted(ambiguous))}")
    close = difflib.get_close_matches(name, list(table) + list(shorts), n=1)
    hint = f", did you mean \"{close[0]}\"?" if close else " (configs/README.md lists the keys)"
    raise UnknownKey(f"unknown config key{hint}")


def flatten(tree, prefix=""):
    """{"mac_array": {"rows": 32}} -> {"mac_array.rows": 32}."""
    flat = {}
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, path + "."))
        else:
            flat[path] = value
    return flat
