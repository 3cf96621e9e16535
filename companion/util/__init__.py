"""Helpers that know no game: text, files, bounded JSON, rate limits, settings, the catalogues' wording."""
