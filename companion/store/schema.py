"""The store's tables, and the version of their layout.

One row per accepted event (``events``), each game's setup and settings (``games``), and what
the table keeps beside them: the game on the table, a take being prepared, rows set aside by
damage and the damage itself, tags, followers' places, the host's merges, marks and choices,
and the database's identity (`companion.store.wal_owner`). `companion.store.log.Store`
creates them at opening and upgrades an older store once (`SCHEMA_VERSION`).
"""

from __future__ import annotations

from companion.store.wal_owner import IDENTITY_TABLE

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS games (
    id       INTEGER PRIMARY KEY,
    created  TEXT NOT NULL,
    setup    TEXT NOT NULL,          -- the record's setup line (JSON)
    meta     TEXT NOT NULL,          -- the table's own settings: colours, mock dealer seed (JSON)
    finished INTEGER NOT NULL DEFAULT 0,
    sum      TEXT,                   -- checksum of id, created, setup and meta: the chain's start
    head     TEXT,                   -- checksum of the last event stored (sum while none is)
    format   TEXT                    -- the codec's format name its setup and events are in ("trekking/1")
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,        -- 1, 2, 3... within the game
    event   TEXT NOT NULL,           -- the record's event line (JSON)
    at      TEXT NOT NULL,
    sum     TEXT,                    -- checksum of this row and the previous row's checksum
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS current (
    one     INTEGER PRIMARY KEY CHECK (one = 1),
    game_id INTEGER NOT NULL         -- the game on the table: what a restart resumes
);
CREATE TABLE IF NOT EXISTS pending (
    game_id INTEGER PRIMARY KEY,     -- a take being prepared (card tapped, not confirmed)
    take    TEXT NOT NULL            -- its JSON, so a restart resumes it
);
CREATE TABLE IF NOT EXISTS set_aside (
    damage  INTEGER NOT NULL,        -- the damage record that moved it here
    game_id INTEGER NOT NULL,        -- an events row from the first damaged one on, as it was
    seq     INTEGER NOT NULL,
    event   TEXT NOT NULL,
    at      TEXT NOT NULL,
    sum     TEXT
);
CREATE TABLE IF NOT EXISTS damage (
    id      INTEGER PRIMARY KEY,     -- damage found in a game's rows, shown until acknowledged
    at      TEXT NOT NULL,
    game_id INTEGER NOT NULL,
    code    TEXT NOT NULL,           -- store_event_damaged, store_events_missing, store_setup_damaged
    params  TEXT NOT NULL,           -- its facts (JSON), for the page's sentence
    acknowledged INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS tags (
    uid     TEXT PRIMARY KEY,        -- the tag's UID as the reader reports it
    card    TEXT NOT NULL,           -- a card id, an itinerary id or "ancestor"
    edition TEXT NOT NULL,
    at      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS stream_cursors (
    name    TEXT PRIMARY KEY,        -- a follower of the committed stream (a venue's outbox)
    game_id INTEGER NOT NULL,        -- the last event it has delivered: it catches up after it
    seq     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS player_aliases (
    alias   TEXT PRIMARY KEY,        -- a spelling's key (history.past.player_key), merged by the host
    player  TEXT NOT NULL,           -- the key of the player it is merged into
    name    TEXT NOT NULL            -- that player's name as the host wrote it
);
CREATE TABLE IF NOT EXISTS assisted (
    game_id INTEGER PRIMARY KEY,     -- a game in which the coach gave advice (issue 24)
    at      TEXT NOT NULL            -- when its first advice was given
);
CREATE TABLE IF NOT EXISTS player_marks (
    player  TEXT PRIMARY KEY,        -- a player's key (util.text.name_key, after the host's merges)
    colour  TEXT NOT NULL,           -- their colour, "#rrggbb": the table's, the ring's, the history's
    marker  INTEGER NOT NULL         -- their marker, an index in the page's marks (issue 24)
);
CREATE TABLE IF NOT EXISTS options (
    name    TEXT PRIMARY KEY,        -- a choice of the host kept with the games (rate_assisted)
    value   TEXT NOT NULL            -- its JSON
);
"""
    + IDENTITY_TABLE
)

#: The schema's version (``PRAGMA user_version``): 1 added the checksums, 2 each game's format.
SCHEMA_VERSION = 2
#: The format of every game stored before formats were recorded (schema 2): the only one
#: the companion ever wrote then. A fact about old files, not a way of reading them.
LEGACY_FORMAT = "trekking/1"
