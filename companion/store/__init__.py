"""The game log on disk: SQLite, its write-ahead log's check, nothing about the web or the hardware."""
