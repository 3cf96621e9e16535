"""A finished game as a BG Stats play: the app's documented "createPlay" push link.

Nothing is sent from the companion: the page shows the link and a phone with BG Stats opens
it. The fields are those of BG Stats' "Push plays to BG Stats from other apps or websites"
(https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/, read
2026-11-24); ``sourceName`` and ``sourcePlayId`` are sent as other apps that push plays send
them, and ``board`` is the mode played ("Base" or "Solo").
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from companion.records.league import PastGame
from companion.util.wording import say

CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html"
#: Our name in BG Stats: part of how it remembers its matches, so it never changes.
SOURCE_NAME = "Trekking Companion"
GAME_NAME = "Trekking Through History"
#: The game's BoardGameGeek id. Checked 2026-11-24 in a BoardGameGeek XML API answer (a
#: user's plays, kept in a public repository): <item name="Trekking Through History"
#: objecttype="thing" objectid="353288">, and in an independent list that gives the same id
#: for the title. The boardgamegeek.com/boardgame/353288 page itself could not be opened from
#: here; one other list gave 350928, which matches neither of those two sources.
BGG_ID = 353288
#: The game in our own terms (BG Stats' ``sourceGameId``): one game, whatever the edition.
SOURCE_GAME_ID = "trekking-through-history"
#: BG Stats' ``board`` names the board or mode played: the base game, or the solo mode.
BOARD_BASE, BOARD_SOLO = "Base", "Solo"


def play_id(game: PastGame) -> str:
    """``sourcePlayId``: the game's id, with its start time so that a new data directory's
    game 1 is not taken for an older game 1 that BG Stats already has."""
    return f"{game.id}-{game.started.strftime('%Y%m%dT%H%M%SZ')}"


def comments(
    game: PastGame, names: dict[str, str] | None = None, lang: str = "en", assisted: bool = False
) -> str:
    """The score breakdown, in BG Stats' free-text comments: in the asking page's language,
    each player by the name shown across games (the host's merges), as in the players list;
    a game the coach advised in says so (``assisted``), as the history marks it."""
    shown = names or {}
    lines = [
        say(
            "bgstats_line",
            lang,
            name=shown.get(p.key, p.name),
            score=p.score,
            track=p.track,
            crystals=p.crystals,
            treks=p.trek_points,
            cards=", ".join(str(n) for n in p.treks) or "—",
        )
        for p in sorted(game.players, key=lambda p: p.rank)
    ]
    lines.append(tie_break_words(game, shown, lang))
    lines.append(say("bgstats_edition", lang, edition=game.edition))
    if assisted:
        lines.append(say("bgstats_assisted", lang))
    return "\n".join(lines)


def tie_break_words(game: PastGame, shown: dict[str, str], lang: str = "en") -> str:
    """How the winner was decided, in ``lang``, with the end screen's words (the engine's
    `explain_tie_break` is English, for replays and logs)."""
    best = max(p.score for p in game.players)
    leaders = [shown.get(p.key, p.name) for p in game.players if p.score == best]
    won = [shown.get(p.key, p.name) for p in sorted(game.players, key=lambda p: p.rank) if p.winner]
    if len(leaders) == 1:
        return say("bgstats_won", lang, w=won[0] if won else leaders[0], n=best)
    if len(won) != 1:
        return say("tie_shared", lang, names=", ".join(leaders), n=best)
    return say("tie_won", lang, names=", ".join(leaders), n=best, w=won[0])


def play(
    game: PastGame, names: dict[str, str] | None = None, lang: str = "en", assisted: bool = False
) -> dict[str, Any]:
    """The play's JSON object. ``names`` gives each player key the name shown across games
    (the host's merges); by default the name written for this game."""
    shown = names or {}
    started = game.started.astimezone()  # the table's local time, as the family lived it
    data: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": play_id(game),
        "playDate": started.strftime("%Y-%m-%d %H:%M:%S"),
        "game": {
            "name": GAME_NAME,
            "bggId": BGG_ID,
            "highestWins": True,
            "noPoints": False,
            "sourceGameId": SOURCE_GAME_ID,
        },
        "board": BOARD_SOLO if game.solo else BOARD_BASE,
        "players": [
            {
                "name": shown.get(p.key, p.name),
                "score": p.score,
                "winner": p.winner,
                "rank": p.rank,
                "startPlayer": p.name == game.start_player,
                # the player across games, so BG Stats matches them once and remembers
                "sourcePlayerId": p.key,
            }
            for p in game.players
        ],
        "comments": comments(game, shown, lang, assisted),
    }
    if game.minutes is not None:
        data["durationMin"] = game.minutes
    return data


def play_url(data: dict[str, Any]) -> str:
    """The link BG Stats opens: the JSON, url-encoded (every reserved character escaped)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"{CREATE_PLAY}?data={quote(text, safe='')}"
