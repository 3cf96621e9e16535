"""Game records: the trekking/1 format (JSON Lines) and replaying a record through the engine."""
