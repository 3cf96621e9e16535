"""Tests: the suite."""
