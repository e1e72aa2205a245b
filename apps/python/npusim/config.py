"""Hardware configs from files, dicts or edits of other configs. Everything goes through the
C++ loader, so every rule and message is the one configs/README.md documents."""
import copy
import os
import re

import yaml

from . import _core

Config = _core.Config


class _Yaml12Loader(yaml.SafeLoader):
    """PyYAML follows YAML 1.1, where 3e-04 (no dot) is a string; the C++ loader and
    configs/README.md read it as a number, so exponent floats resolve as numbers here too."""


_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"))


def load_yaml(text):
    return yaml.load(text, Loader=_Yaml12Loader)


def load_config(source):
    """A Config from a YAML path, a dict in the YAML file's shape, or a Config (returned as is)."""
    if isinstance(source, Config):
        return source
    if isinstance(source, dict):
        return _core.parse_config(yaml.safe_dump(source, sort_keys=False), "<dict>")
    if isinstance(source, (str, os.PathLike)):
        return _core.load_config_file(os.fspath(source))
    raise TypeError(f"load_config: expected a path, a dict or a Config, got {type(source).__name__}")


def config_to_dict(config):
    """Every key of the config, nested by section, in YAML units (capacity_kib, not bytes)."""
    return copy.deepcopy(_tree_of(config.yaml()))


# A sweep edits one base config thousands of times: its YAML is parsed once (PyYAML's pure
# Python loader took most of with_values' time) and written with libyaml when PyYAML has it.
_TREES = {}
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _tree_of(text):
    tree = _TREES.get(text)
    if tree is None:
        if len(_TREES) >= 16:
            _TREES.clear()
        tree = _TREES[text] = load_yaml(text)
    return tree


def with_values(config, values, origin="<edited>"):
    """A copy of `config` with `values` ({"mac_array.rows": 64, ...}) replaced, re-validated.
    Optional sections (energy, area) appear when one of their keys is set."""
    tree = dict(_tree_of(config.yaml()))  # the cached tree is shared: copy what is edited
    for path, value in values.items():
        node = tree
        *sections, key = path.split(".")
        for section in sections:
            child = node.get(section)
            node[section] = child = dict(child) if isinstance(child, dict) else {}
            node = child
        node[key] = value
    return _core.parse_config(yaml.dump(tree, Dumper=_Dumper, sort_keys=False), origin)


def config_keys():
    """The schema table: one dict per key (path, kind, min, max, default, unit, meaning; for a
    choice its names as "a|b" and choice_descriptions {name: meaning}, ...)."""
    return _core.config_keys()
