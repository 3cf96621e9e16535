"""Tests: venue."""
