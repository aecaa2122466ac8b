"""The package's version, written in this one place: pyproject.toml reads it from here, and importing
it costs nothing (importlib.metadata would take tens of milliseconds of every command's start-up)."""
__version__ = "0.2.0.dev0"
