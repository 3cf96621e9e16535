"""Benchmarks, stress runs and the modules they share with the tests."""
