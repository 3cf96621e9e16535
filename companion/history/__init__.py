"""Finished games: players across games, figures, ratings, and the BG Stats link."""
