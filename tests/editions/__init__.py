"""Tests: editions."""
