"""After the game: finished games replayed from the event log, per-player figures, merges of
two spellings, openskill ratings and the BG Stats play of a finished game."""

from __future__ import annotations

import gzip
import io
import json
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import segno

from companion.engine import Board, Undo
from companion.engine.scoring import Standing
from companion.history.bgstats import BGG_ID, CREATE_PLAY, SOURCE_NAME, play, play_url
from companion.history.past import Replays, load_history
from companion.records.league import player_stats, ranks, rate
from companion.records.trekking import TREKKING
from companion.store.log import Store
from companion.web.app import create_app
from tests.support.games import finished_game, made_up_game
from tests.support.tables import make_runtime

PIN = {"X-Table-Pin": "2468"}
#: BG Stats' documented createPlay fields (bgstats.py cites the page).
PLAY_FIELDS = {"sourceName", "sourcePlayId", "playDate", "durationMin", "game", "players", "board"}
PLAY_FIELDS |= {"comments", "location"}
GAME_FIELDS = {"name", "bggId", "highestWins", "noPoints", "sourceGameId"}
PLAYER_FIELDS = {"name", "score", "winner", "rank", "startPlayer", "sourcePlayerId", "role"}


def standing(name: str, total: int, treks: tuple[int, ...] = (3,)) -> Standing:
    return Standing(name, total, 0, 0, total, treks, 12)


# --- replayed from the log --------------------------------------------------------------------


def test_finished_games_are_replayed_from_their_events(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    first, board1 = finished_game(store, ["Ann", "Ben", "Cy"], 1)
    second, board2 = finished_game(store, ["Ben", "Ann"], 2)
    unfinished = store.new_game({"type": "setup", "players": ["Ann", "Ben"], "edition": "reference"}, {})
    history = load_history(store)
    assert [g.id for g in history.games] == [first, second]  # the game in play is not history
    assert unfinished not in [g.id for g in history.games]
    for game, board in ((history.games[0], board1), (history.games[1], board2)):
        final = {s.name: s for s in board.standings()}
        for p in game.players:
            s = final[p.name]
            assert (p.score, p.crystals, p.trek_points, p.treks) == (
                s.total,
                s.crystals,
                s.trek_points,
                s.treks,
            )
            assert p.longest_trek == max(s.treks)
            assert p.winner == (p.name in board.winners())
            assert (p.rank == 1) == p.winner
        assert game.start_player == board.setup.watch_stack[0]
        assert game.minutes is not None and game.minutes >= 1


def test_a_finished_game_is_replayed_once_until_its_log_changes(tmp_path: Path, monkeypatch: Any) -> None:
    store = Store(tmp_path, TREKKING)
    game_id, board = finished_game(store, ["Ann", "Ben"], 3)
    replays = Replays()
    loads: list[int] = []
    real_load = store.load
    monkeypatch.setattr(store, "load", lambda game: loads.append(game) or real_load(game))
    first = load_history(store, replays)
    assert load_history(store, replays).games == first.games and loads == [game_id]
    # an undo after the end is one more event: the game is replayed again, and no longer over
    store.write_events(game_id, len(board.moves) + 1, [Undo()], finished=True)
    assert load_history(store, replays).games == [] and loads == [game_id, game_id]


def test_per_player_figures_count_every_game_they_played(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    tables = (["Ann", "Ben"], ["ann ", "Cy"], ["Ben", "Cy", "ANN"])
    boards = [finished_game(store, names, seed)[1] for seed, names in enumerate(tables)]
    stats = {s.key: s for s in player_stats(load_history(store).games, {})}
    assert set(stats) == {"ann", "ben", "cy"}  # case and spacing do not make another player
    anns = [next(s for s in b.standings() if s.name.strip().casefold() == "ann") for b in boards]
    ann = stats["ann"]
    assert ann.games == 3
    assert ann.wins == sum("ann" in [w.strip().casefold() for w in b.winners()] for b in boards)
    assert ann.best == max(s.total for s in anns)
    assert ann.average == pytest.approx(sum(s.total for s in anns) / 3)
    assert ann.longest_trek == max(max(s.treks) for s in anns)
    assert ann.average_trek_points == pytest.approx(sum(s.trek_points for s in anns) / 3)
    assert ann.average_crystals == pytest.approx(sum(s.crystals for s in anns) / 3)
    assert sorted(ann.spellings) == sorted(["Ann", "ann ", "ANN"])
    assert ann.name == "ANN"  # the latest spelling of that key


def test_places_follow_the_total_then_the_longest_treks_and_ties_share() -> None:
    rows = [
        standing("A", 40, (5, 2)),
        standing("B", 40, (4, 3)),
        standing("C", 38),
        standing("D", 40, (5, 2)),
    ]
    assert ranks(rows) == [1, 3, 4, 1]


# --- ratings ----------------------------------------------------------------------------------


def test_a_player_who_wins_more_rises_and_solo_games_do_not_rate() -> None:
    games = [made_up_game(n, {"Ann": 1, "Ben": 2, "Cy": 3}, n) for n in range(5)]
    games.append(made_up_game(9, {"Cy": 1, "Ann": 2}, 6))
    games.append(made_up_game(10, {"Cy": 1}, 7))  # solo: nobody to rank against
    rated = rate(games)
    rating = {k: mu - 3 * sigma for k, (mu, sigma, _) in rated.items()}
    assert rating["ann"] > rating["ben"] > rating["cy"]
    assert rated["cy"][2] == 6 and rated["ann"][2] == 6  # the solo game was not rated
    assert rate(games[:-1]) == rated
    # the same games in another order of play: dates decide, not the list's order
    assert rate(list(reversed(games))) == rated


def test_ties_are_ties_in_the_ratings() -> None:
    games = [made_up_game(n, {"Ann": 1, "Ben": 1, "Cy": 3}, n) for n in range(3)]
    rated = rate(games)
    assert rated["ann"] == rated["ben"]
    assert rated["ann"][0] > rated["cy"][0]


# --- BG Stats -----------------------------------------------------------------------------------


def check_play(data: dict[str, Any], board: Board, game_id: int) -> None:
    """The play's JSON against BG Stats' documented fields and the game's standings."""
    assert set(data) <= PLAY_FIELDS
    assert {"sourceName", "sourcePlayId", "playDate", "game", "players"} <= set(data)
    assert set(data["game"]) <= GAME_FIELDS
    assert data["sourceName"] == SOURCE_NAME
    assert data["sourcePlayId"].startswith(f"{game_id}-")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", data["playDate"])
    assert isinstance(data["durationMin"], int) and data["durationMin"] >= 1
    assert data["game"] == {"name": "Trekking Through History", "bggId": BGG_ID, "highestWins": True,
                            "noPoints": False, "sourceGameId": "trekking-through-history"}  # fmt: skip
    assert data["board"] == ("Solo" if len(board.names) == 1 else "Base")
    standings = board.standings()
    assert [p["name"] for p in data["players"]] == [s.name for s in standings]
    for p, s, place in zip(data["players"], standings, ranks(standings), strict=True):
        assert set(p) <= PLAYER_FIELDS
        assert p["score"] == s.total
        assert p["winner"] == (s.name in board.winners())
        assert p["rank"] == place
        assert p["startPlayer"] == (s.name == board.setup.watch_stack[0])
        assert p["sourcePlayerId"] == s.name.casefold()
        assert (
            f"{s.name}: {s.total} = track {s.track} + crystals {s.crystals} + trek points {s.trek_points}"
            in (data["comments"])
        )
    assert sum(p["startPlayer"] for p in data["players"]) == 1


def decode(url: str) -> dict[str, Any]:
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == CREATE_PLAY
    data: dict[str, Any] = json.loads(parse_qs(parts.query, strict_parsing=True)["data"][0])
    return data


def test_the_bgstats_play_carries_the_documented_fields(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    game_id, board = finished_game(store, ["Ann", "Bé & Co?", "Cy"], 4)
    solo_id, solo = finished_game(store, ["Zoé"], 5)
    games = {g.id: g for g in load_history(store).games}
    data = play(games[game_id])
    check_play(data, board, game_id)
    assert decode(play_url(data)) == data  # reserved characters in names survive the link
    assert "&" not in urlsplit(play_url(data)).query.split("data=", 1)[1]
    check_play(play(games[solo_id]), solo, solo_id)
    assert play(games[game_id])["sourcePlayId"] == data["sourcePlayId"]  # a repeat is recognised


def test_the_bgstats_route_answers_finished_games_only(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben")
    try:
        game_id, board = finished_game(rt.store, ["Ann", "Ben"], 6)
        http = create_app(rt).test_client()
        answer = http.get(f"/api/bgstats/{game_id}").get_json()
        check_play(answer["play"], board, game_id)
        assert decode(answer["url"]) == answer["play"]
        refused = http.get(f"/api/bgstats/{rt.table.game_id}")  # the game on the table is not over
        assert refused.status_code == 404 and refused.get_json()["code"] == "no_finished_game"
    finally:
        rt.stop()


def drawn(text: str) -> bytes:
    """``text`` as a QR code drawn here with segno, as the page's QR route is asked to."""
    drawing = io.BytesIO()
    segno.make(text, error="m").save(drawing, kind="svg", scale=5, light="#fff")
    return drawing.getvalue()


def test_the_one_qr_route_draws_a_finished_games_card_and_refuses_any_other_game(tmp_path: Path) -> None:
    """The page's one QR route (issue 22.7): the page's address, or with ``?game=N`` a finished
    game's card on the history page (its "Send to BG Stats" link); never a game not over."""
    rt = make_runtime(tmp_path, "Ann,Ben")
    try:
        game_id, _ = finished_game(rt.store, ["Ann", "Ben"], 6)
        http = create_app(rt).test_client()
        base = "http://192.168.1.20:8080"
        qr = http.get(f"/api/qr.svg?game={game_id}", base_url=base)
        assert qr.status_code == 200 and qr.mimetype == "image/svg+xml"
        assert qr.get_data() == drawn(f"{base}/history#game-{game_id}")
        joined = http.get("/api/qr.svg", base_url=base)  # no game: the page's address, as before
        assert joined.get_data() == drawn(http.get("/api/join", base_url=base).get_json()["url"])
        for game in (
            str(rt.table.game_id),
            "999",
            "",
            "1e3",
            "-1",
            "9" * 30,
        ):  # not over, unknown, not a number
            refused = http.get("/api/qr.svg", query_string={"game": game})
            assert refused.status_code == 404 and refused.mimetype == "application/json", game
            assert refused.get_json()["code"] == "no_finished_game", game
        assert http.get(f"/api/bgstats/{game_id}/qr.svg").status_code == 404  # the second route is gone
    finally:
        rt.stop()


# --- the host's merges --------------------------------------------------------------------------


def players_of(http: Any) -> dict[str, dict[str, Any]]:
    return {p["key"]: p for p in http.get("/api/history").get_json()["players"]}


def test_a_merge_joins_two_spellings_and_can_be_undone(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben")
    try:
        finished_game(rt.store, ["Sam", "Ann"], 7)
        finished_game(rt.store, ["Samuel", "Ben"], 8)
        finished_game(rt.store, ["Ann", "Ben"], 9)
        http = create_app(rt).test_client()
        before = players_of(http)
        assert before["sam"]["games"] == 1 and before["samuel"]["games"] == 1
        body = {"name": "Sam", "into": "Samuel"}
        assert http.post("/api/players/merge", json=body).status_code == 401  # the host's decision
        answer = http.post("/api/players/merge", json=body, headers=PIN)
        assert answer.status_code == 200 and answer.get_json()["code"] == "merged"
        after = players_of(http)
        assert "sam" not in after
        samuel = after["samuel"]
        assert samuel["games"] == 2 and sorted(samuel["spellings"]) == ["Sam", "Samuel"]
        assert samuel["name"] == "Samuel"
        assert samuel["wins"] == before["sam"]["wins"] + before["samuel"]["wins"]
        assert samuel["best"] == max(before["sam"]["best"], before["samuel"]["best"])
        assert samuel["rated_games"] == 2
        # the history lists the game under the name written then, and the player it counts for
        oldest = http.get("/api/history").get_json()["games"][-1]
        sam = next(p for p in oldest["players"] if p["name"] == "Sam")
        assert (sam["key"], sam["player"]) == ("samuel", "Samuel")
        # the BG Stats play names the merged player, so BG Stats matches one person
        play_json = http.get(f"/api/bgstats/{oldest['id']}").get_json()["play"]
        assert {"name": "Samuel", "sourcePlayerId": "samuel"}.items() <= play_json["players"][0].items()
        # only the mapping is stored: no score was copied
        assert rt.store.aliases() == {"sam": ("samuel", "Samuel")}
        assert http.post("/api/players/unmerge", json={"name": "Sam"}, headers=PIN).status_code == 200
        assert players_of(http) == before
    finally:
        rt.stop()


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": "Sam"}, "merge_fields"),
        ({"name": "Nobody", "into": "Ann"}, "unknown_player"),
        ({"name": "ann", "into": "Ann"}, "same_player"),
        ({"name": "Ann", "into": "Ben"}, "played_together"),
    ],
)
def test_a_merge_that_cannot_be_is_refused_and_changes_nothing(
    tmp_path: Path, body: dict[str, str], code: str
) -> None:
    rt = make_runtime(tmp_path, "Ann,Ben")
    try:
        finished_game(rt.store, ["Ann", "Ben"], 10)
        http = create_app(rt).test_client()
        before = players_of(http)
        answer = http.post("/api/players/merge", json=body, headers=PIN)
        assert answer.status_code == 400 and answer.get_json()["code"] == code
        assert players_of(http) == before and rt.store.aliases() == {}
        refused = http.post("/api/players/unmerge", json={"name": "Ann"}, headers=PIN)
        assert refused.get_json()["code"] == "not_merged"
    finally:
        rt.stop()


def test_a_damaged_game_is_listed_as_unreadable_and_the_others_still_count(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    damaged, _ = finished_game(store, ["Ann", "Ben"], 16)
    kept, _ = finished_game(store, ["Ann", "Cy"], 17)
    store._write([("UPDATE events SET event = '{not json' WHERE game_id = ? AND seq = 3", (damaged,))])
    history = load_history(store)
    assert history.unreadable == [damaged]
    assert [g.id for g in history.games] == [kept]


def test_merging_into_a_player_others_were_merged_into_moves_them_too(tmp_path: Path) -> None:
    store = Store(tmp_path, TREKKING)
    store.merge_player("sam", "samuel", "Samuel")
    store.merge_player("samuel", "sammy", "Sammy")  # no chain: Sam follows Samuel
    assert store.aliases() == {"sam": ("sammy", "Sammy"), "samuel": ("sammy", "Sammy")}
    assert store.unmerge_player("samuel") and not store.unmerge_player("samuel")
    assert store.aliases() == {"sam": ("sammy", "Sammy")}


# --- issue 21: merges a table contradicts; one normalisation of names --------------------------


def test_a_merge_then_both_spellings_at_one_table_are_two_players(tmp_path: Path) -> None:
    """Issue 21 item 3: after merging Sam into Al, a game with both gave Sam's score to Al, made
    the real Al a phantom "al #2" shown as "Al", listed two players named Al in that game's BG
    Stats link, and a later merge into Al landed on the phantom."""
    rt = make_runtime(tmp_path, "Ann,Ben")
    try:
        finished_game(rt.store, ["Sam", "Ben"], 21)
        finished_game(rt.store, ["Al", "Ben"], 22)
        http = create_app(rt).test_client()
        assert (
            http.post("/api/players/merge", json={"name": "Sam", "into": "Al"}, headers=PIN).status_code
            == 200
        )
        both, board = finished_game(rt.store, ["Al", "Sam", "Ben"], 23)
        final = {s.name: s.total for s in board.standings()}
        answer = http.get("/api/history").get_json()
        keys = {p["key"] for g in answer["games"] for p in g["players"]}
        assert not any("#" in k for k in keys), f"no phantom player: {keys}"
        game = next(g for g in answer["games"] if g["id"] == both)
        seats = {p["name"]: (p["key"], p["player"], p["score"]) for p in game["players"]}
        assert seats["Al"] == ("al", "Al", final["Al"]), "the real Al keeps his own score"
        assert seats["Sam"][:2] == ("sam", "Sam") and seats["Sam"][2] == final["Sam"]
        assert answer["undone_merges"] == ["sam"], "the merge a table contradicts is listed"
        players = {p["key"]: p for p in answer["players"]}
        assert players["al"]["games"] == 2 and players["sam"]["games"] == 2
        link = http.get(f"/api/bgstats/{both}").get_json()["play"]["players"]
        names = [p["name"] for p in link]
        assert sorted(names) == ["Al", "Ben", "Sam"], names
        assert len({p["sourcePlayerId"] for p in link}) == 3
        # a later merge into Al lands on the real Al
        finished_game(rt.store, ["Alan", "Ben"], 24)
        merged = http.post("/api/players/merge", json={"name": "Alan", "into": "Al"}, headers=PIN)
        assert merged.status_code == 200, merged.get_json()
        assert rt.store.aliases()["alan"] == ("al", "Al")
        assert {p["key"] for p in http.get("/api/history").get_json()["players"]} == {"al", "ben", "sam"}
    finally:
        rt.stop()


def test_a_full_width_name_is_the_same_player_in_the_history(tmp_path: Path) -> None:
    """Issue 21 item 8: "Ann" with a full-width A (U+FF21) and "Ann" are one name at the table, and were two
    players in the history: the history keys names by the table's own rule."""
    store = Store(tmp_path, TREKKING)
    finished_game(store, ["Ann", "Ben"], 25)
    finished_game(store, ["\uff21nn", "Cy"], 26)
    stats = {s.key: s for s in player_stats(load_history(store).games, {})}
    assert set(stats) == {"ann", "ben", "cy"}
    assert stats["ann"].games == 2


# --- issue 21 item 7: the history flood -----------------------------------------------------------


def test_the_history_is_computed_once_between_games(tmp_path: Path) -> None:
    """24 phones reading /api/history over 500 games took taps from 5 ms to 1.2 s: each request
    replayed and rated every game. Now it is computed once until a game ends or a merge."""
    from companion.web.history import history_cache

    rt = make_runtime(tmp_path, "Ann,Ben")
    try:
        finished_game(rt.store, ["Ann", "Ben"], 30)
        app = create_app(rt)
        http = app.test_client()
        answers = [http.get("/api/history") for _ in range(5)]
        with app.app_context():
            cache = history_cache()
        assert cache.computed == 1 and {a.status_code for a in answers} == {200}
        assert len({a.data for a in answers}) == 1
        zipped = http.get("/api/history", headers={"Accept-Encoding": "gzip, deflate"})
        assert zipped.headers["Content-Encoding"] == "gzip" and cache.computed == 1
        assert gzip.decompress(zipped.data) == answers[0].data, "the same answer, compressed once"
        http.post("/api/reader/tap", json={"tag": "I1"}, headers=PIN)  # a move in the game on the table
        http.get("/api/history")
        assert cache.computed == 1, "a move in the game being played changes no finished game"
        finished_game(rt.store, ["Cy", "Ben"], 31)  # a game ends
        assert len(http.get("/api/history").get_json()["games"]) == 2 and cache.computed == 2
        merged = http.post("/api/players/merge", json={"name": "Cy", "into": "Ann"}, headers=PIN)
        assert merged.status_code == 200 and cache.computed == 2, "the merge's check read the same"
        names = {p["key"] for p in http.get("/api/history").get_json()["players"]}
        assert names == {"ann", "ben"} and cache.computed == 3, "the merge changed the history"
        http.get("/api/history")
        assert cache.computed == 3
        http.get(f"/api/bgstats/{answers[0].get_json()['games'][0]['id']}")
        assert cache.computed == 3, "a BG Stats link reads the same history"
    finally:
        rt.stop()


def test_one_guest_more_than_the_bound_is_refused_at_once_with_a_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most HISTORY_READERS guests read the history at once; the next one is told to try again
    (503, history_busy, both languages) instead of taking a thread the table's taps need.
    A logged-in host is never refused."""
    import threading

    import companion.web.history as history_web

    rt = make_runtime(tmp_path, "Ann,Ben")
    try:
        finished_game(rt.store, ["Ann", "Ben"], 32)
        app = create_app(rt)
        inside, release = threading.Semaphore(0), threading.Event()
        real = history_web.history_json

        def held(history: Any, lang: str) -> Any:
            inside.release()
            release.wait(timeout=60)
            return real(history, lang)

        monkeypatch.setattr(history_web, "history_json", held)
        answers: list[int] = []
        guests = [
            threading.Thread(target=lambda: answers.append(app.test_client().get("/api/history").status_code))
            for _ in range(history_web.HISTORY_READERS)
        ]
        for guest in guests:
            guest.start()
        assert inside.acquire(timeout=60), "the first guest is computing"
        with app.app_context():
            slots = history_web.history_cache().readers
        deadline = time.monotonic() + 60
        while slots._value and time.monotonic() < deadline:  # every guest holds its place
            time.sleep(0.01)
        assert slots._value == 0
        # the others wait for the one computation under way, each holding its place
        late = app.test_client().get("/api/history")
        waiting = [app.test_client().get(f"/api/bgstats/{n}") for n in range(1, 3)]  # counted the same
        waiting.append(app.test_client().get("/api/qr.svg?game=1"))  # a game's QR code too
        assert app.test_client().get("/api/qr.svg").status_code == 200  # the page's own is no read
        host = app.test_client()
        assert host.post("/api/login", json={"pin": "2468"}).status_code == 200
        hosts: list[int] = []
        reading = threading.Thread(target=lambda: hosts.append(host.get("/api/history").status_code))
        reading.start()  # past the bound: it waits for the computation, it is not refused
        release.set()
        for thread in [*guests, reading]:
            thread.join(timeout=60)
        assert hosts == [200]
        assert answers == [200] * history_web.HISTORY_READERS
        assert late.status_code == 503 and late.headers["Retry-After"] == "2"
        said = late.get_json()
        assert said["code"] == "history_busy" and "Try again" in said["error"]
        assert {w.status_code for w in waiting} == {503}
    finally:
        rt.stop()


def test_a_guest_reading_the_history_in_a_loop_is_told_to_wait(tmp_path: Path) -> None:
    """One address may read /api/history HISTORY_READS_PER_MINUTE times a minute (a page reads it
    once per load); past that it is told to wait, others are not, and a host never is."""
    from companion.web.history import HISTORY_READS_PER_MINUTE
    from tests.support.tables import client_from

    rt = make_runtime(tmp_path, "Ann,Ben")
    try:
        finished_game(rt.store, ["Ann", "Ben"], 33)
        app = create_app(rt)
        guest = client_from(app, "10.0.0.7")
        codes = [guest.get("/api/history").status_code for _ in range(HISTORY_READS_PER_MINUTE + 1)]
        assert codes == [200] * HISTORY_READS_PER_MINUTE + [503]
        refused = guest.get("/api/history")
        assert refused.get_json()["code"] == "history_too_often" and refused.headers["Retry-After"] == "10"
        assert "Wait a little" in refused.get_json()["error"]
        assert client_from(app, "10.0.0.8").get("/api/history").status_code == 200
        host = client_from(app, "10.0.0.7")
        assert host.post("/api/login", json={"pin": "2468"}).status_code == 200
        assert host.get("/api/history").status_code == 200, "a host is never told to wait"
    finally:
        rt.stop()
