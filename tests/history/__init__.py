"""Tests: history."""
