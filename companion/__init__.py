"""The Trekking Companion: a referee for the board game Trekking Through History."""

from importlib.metadata import PackageNotFoundError, version

try:
    #: The version written once, in pyproject.toml, read from the installed package's metadata.
    __version__ = version("trekking-companion")
except PackageNotFoundError:  # the source tree on sys.path without an install: no metadata
    __version__ = "0+unknown"
