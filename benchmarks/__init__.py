"""Benchmarks: figures of what users feel (see README.md); their harnesses are in tests/support."""
