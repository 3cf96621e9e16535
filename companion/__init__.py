"""The Trekking Companion: a referee for the board game Trekking Through History.

``__version__`` is read from the installed package's metadata when first asked for (PEP 562):
``importlib.metadata`` and what it loads (email, zipfile) cost a third of a second of an
emulated Pi's start (docs/benchmarks-pi.md), and only ``companion --version`` needs it.
"""

from __future__ import annotations


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module 'companion' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        #: The version written once, in pyproject.toml.
        found = version("trekking-companion")
    except PackageNotFoundError:  # the source tree on sys.path without an install: no metadata
        found = "0+unknown"
    globals()["__version__"] = found
    return found
