"""Tests: run."""
