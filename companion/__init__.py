"""The Trekking Companion: a referee for the board game Trekking Through History."""

__version__ = "0.1.0"
