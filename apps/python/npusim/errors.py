"""Exceptions raised by npusim. Messages are the one line the CLI prints after
"npusim <command>: error: ", naming the file, key, node or input at fault."""


class Error(RuntimeError):
    """Anything npusim reports as an error (a failed run, a missing file, a bad input)."""


class ConfigError(Error, ValueError):
    """An invalid hardware configuration: "<file>: <key.path>: <problem> (got <value>)"."""


class CompileError(Error, ValueError):
    """A model the compiler cannot compile for this configuration (e.g. a layer that needs
    more SRAM than the config has)."""


class SweepSpecError(Error, ValueError):
    """An invalid sweep specification: "<spec file>: <key>: <problem>"."""
