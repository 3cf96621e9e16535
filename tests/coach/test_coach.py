"""The coach (`companion.coach.chances`) and the engine's fast path its rollouts use.

- `Board.push_unrecorded` gives exactly what `Board.push` gives, over random games on
  random editions (Hypothesis), and `Board.fork` is the same position;
- `play_out` (the rollouts' one-loop random game) plays exactly the random bot's moves
  through `push`: the same state after every move and the same final scores, over
  random games on random editions (Hypothesis), and the coach's tallies for a seed are
  the ones the random bot and `push_unrecorded` give;
- `Board.from_snapshot` on a later Day refills from that Day's deck;
- the coach is deterministic with a seed, ranks a clearly winning card first, lists
  only cards the player may take, never reads the real order of unseen cards, and its
  players' win probabilities add up to 1.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from companion.coach.bots import random_bot
from companion.coach.chances import CoachPool, candidates, evaluate, redeal
from companion.coach.simulate import random_setup
from companion.editions import load_edition
from companion.engine import Board, ChooseItinerary, Event, Reveal, Take, Undo, make_setup, parse_edition
from companion.engine.playout import play_out, result, trek_points_table
from companion.engine.scoring import winners
from companion.engine.state import HIDDEN, Setup, shuffled_setup
from tests.support.builders import board, card, edition, filler
from tests.support.coach_bot import coach_bot
from tests.support.strategies import editions


def _random_event(board: Board, rng: random.Random) -> Any:
    """Mostly the random bot's legal move; sometimes a take that may well be refused, or a reveal."""
    roll = rng.random()
    cards = board.edition.cards
    if board.setup.reveals and board.waiting_position() >= 0 and roll < 0.8:
        day = [c.id for i, c in enumerate(cards) if c.day == board.day and not board.revealed >> i & 1]
        return Reveal(rng.choice(day) if day and rng.random() < 0.9 else rng.choice(cards).id)
    if roll < 0.15:
        return Take(rng.choice([*(c.id for c in cards), "ancestor", "nope"]), None, rng.randint(0, 3), ())
    if roll < 0.18:
        return Take(rng.choice(cards).id, rng.choice([*board.names, "Zed"]), 0, ())
    return random_bot(board, rng)


def _drawn_setup(obj: dict[str, Any], players: int, seed: int, reveals: bool) -> tuple[Setup, random.Random]:
    """The properties' game: a drawn edition for ``players``, its decks shuffled by the seeded
    stream (or dealt by hand when ``reveals``), and that stream; an edition with too few
    itineraries for three Days is no example (Hypothesis draws another)."""
    ed = parse_edition(obj)
    names = ["Ann", "Ben", "Cy", "Dee"][:players]
    assume(not (ed.itineraries and len(ed.itineraries) < 3 * players))
    rng = random.Random(seed)
    return (make_setup(ed, names) if reveals else shuffled_setup(ed, names, names, rng)), rng


def _steps(board: Board, most: int = 400) -> Iterator[int]:
    """Up to ``most`` steps of a compared game, while ``board``'s game is not over."""
    for step in range(most):
        if board.finished:
            return
        yield step


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(editions(), st.integers(1, 4), st.integers(0, 2**32 - 1), st.booleans())
def test_push_unrecorded_gives_exactly_what_push_gives(
    obj: dict[str, Any], players: int, seed: int, reveals: bool
) -> None:
    setup, rng = _drawn_setup(obj, players, seed, reveals)
    recorded, fast = Board(setup), Board(setup)
    for _ in _steps(recorded):
        event = _pushed_on_both(recorded, fast.push_unrecorded, rng)
        if event is None:  # a stuck game: nothing more to compare
            break
        assert fast.snapshot() == recorded.snapshot(), event
        assert fast.fork(setup).snapshot() == recorded.snapshot()
    assert fast.moves == [] and fast.push_unrecorded(Undo()) is not None
    assert recorded.finished == fast.finished


def _pushed_on_both(recorded: Board, push: Callable[[Event], Any], rng: random.Random) -> Event | None:
    """A random event (`_random_event`) pushed on ``recorded`` and by ``push`` on the other board,
    both refusing it alike or accepting it; None when the game is stuck (too few cards for a Day)."""
    try:
        event = _random_event(recorded, rng)
    except RuntimeError:
        return None
    expected, got = recorded.push(event), push(event)
    assert (expected and expected.code) == (got and got.code), event
    return event


def _compare_play_out(setup: Any, rng: random.Random, seen: dict[str, int] | None = None) -> None:
    """One random game played on two boards: ``recorded`` by `random_bot` and `push`,
    ``fast`` by `play_out` in chunks of 1-5 moves with a copy of the same random stream;
    now and then the same other event (a reveal, a take that may be refused) on both.
    The whole state must be equal after every chunk, and so must the final scores.
    ``seen`` counts what the game went through (crystals spent, Ancestors, ...)."""
    recorded, fast = Board(setup), Board(setup)
    for _ in _steps(recorded, 300):
        roll = rng.random()
        if roll < 0.25 or (setup.reveals and recorded.waiting_position() >= 0 and roll < 0.8):
            if _pushed_on_both(recorded, fast.push, rng) is None:  # a stuck game: nothing more to compare
                break
            continue
        chunk = rng.randint(1, 5)
        state = rng.getstate()
        stuck = played = 0
        for _ in range(chunk):
            if recorded.finished:
                break
            try:
                event = random_bot(recorded, rng)
            except RuntimeError:
                stuck = 1
                break
            before = recorded.snapshot()
            assert recorded.push(event) is None, event
            played += 1
            if seen is not None and type(event) is Take:
                seen["crystals spent"] += event.crystals > 0
                seen["ancestors"] += event.card == "ancestor"
                seen["day ends"] += recorded.day > before.day or recorded.finished
                me = before.players[before.turn]
                columns = recorded.column_depths(before.turn)
                seen["itinerary points"] += recorded.track[before.turn] > me.track and me.itinerary >= 0
                full = recorded.tables.itineraries[me.itinerary].lengths if me.itinerary >= 0 else ()
                seen["full columns"] += any(d == n > 0 for d, n in zip(columns, full, strict=False))
        after = rng.getstate()
        rng.setstate(state)
        try:
            assert play_out(fast, rng, chunk) == played
            assert not stuck
        except RuntimeError:
            assert stuck
        assert rng.getstate() == after  # the same numbers drawn from the stream
        assert fast.snapshot() == recorded.snapshot()
        if stuck:
            break
    assert fast.snapshot() == recorded.snapshot()
    assert fast.standings() == recorded.standings() and fast.winners() == recorded.winners()
    _assert_result_is_the_standings(fast)
    if seen is not None:
        seen["games ended"] += recorded.finished


def _assert_result_is_the_standings(game: Board) -> None:
    """`result` (the rollouts' scoring) says what `standings` and `winners` say."""
    standings = game.standings()
    totals, won = result(game, trek_points_table(game.edition, len(game.names)))
    assert totals == [s.total for s in standings]
    assert [game.names[i] for i in won] == winners(standings)


def test_result_breaks_ties_on_the_longest_treks_as_the_standings_do() -> None:
    game = _gold_board()
    points = game.edition.trek_points
    for treks, lengths, expected in [
        ([[2], [1, 1]], [0, 0], ["Ann"]),  # longest trek 2 beats 1
        ([[1], [2]], [1, 0], ["Ben"]),  # (2,) beats (1, 1)
        ([[2, 1], [1, 2]], [0, 0], ["Ann", "Ben"]),  # the same treks in another order: shared
        ([[3], [2, 1]], [0, 4], ["Ben"]),  # (4, 2, 1) beats (3,)
    ]:
        game.treks[:], game.trek_len[:] = [t[:] for t in treks], lengths
        game.crystals[:] = [0, 0]
        game.track[:] = [20 - sum(map(points, game.trek_lengths(i))) for i in range(2)]  # a tie on points
        assert len({s.total for s in game.standings()}) == 1
        assert winners(game.standings()) == expected
        _assert_result_is_the_standings(game)
    game.track[1] += 1  # no tie: no tie-break
    assert winners(game.standings()) == ["Ben"]
    _assert_result_is_the_standings(game)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(editions(), st.integers(1, 4), st.integers(0, 2**32 - 1), st.booleans())
def test_play_out_plays_exactly_the_random_bots_moves_through_push(
    obj: dict[str, Any], players: int, seed: int, reveals: bool
) -> None:
    _compare_play_out(*_drawn_setup(obj, players, seed, reveals))


def test_play_out_matches_push_through_whole_reference_games() -> None:
    """The property on the reference edition, whose games go through everything the fast
    path shortcuts: the counts show these games are not a vacuous comparison."""
    ed = load_edition("reference")
    seen = dict.fromkeys(
        ["crystals spent", "ancestors", "day ends", "itinerary points", "full columns", "games ended"], 0
    )
    for seed in range(12):
        rng = random.Random(seed)
        _compare_play_out(random_setup(ed, ["Ann", "Ben", "Cy", "Dee"][: 2 + seed % 3], rng), rng, seen)
    assert min(seen.values()) > 0, seen
    assert seen["games ended"] == 12 and seen["day ends"] >= 36


def _rollouts_through_push(board: Board, moves: list[Any], count: int, seed: int) -> Any:
    """`companion.coach.chances.rollouts` as it was before `play_out`: the random bot's events
    through `push_unrecorded` (the reference the coach's tallies must equal), with one deal
    per round for all candidates as the coach deals now."""
    from companion.coach.chances import Tally, _fill_hidden
    from companion.engine.scoring import winners

    rng = random.Random(seed)
    tally = Tally(list(moves), len(board.names))
    for _ in range(count):
        setup, hidden = redeal(board, rng)  # one deal a round, for every candidate
        for i, move in enumerate(moves or [None]):  # no candidate: from the position as it is
            game = board.fork(setup)
            if hidden:
                _fill_hidden(game, hidden)
            if move is not None:
                game.push_unrecorded(Take(move[0], None, move[1], ()))
            while not game.finished:
                game.push_unrecorded(random_bot(game, rng))
            standings = game.standings()
            won = winners(standings)
            for p, row in enumerate(standings):
                if row.name in won:
                    tally.player_wins[i][p] += 1.0 / len(won)
            if move is None:
                continue
            tally.counts[i] += 1
            tally.scores[i] += standings[board.turn].total
            tally.wins[i] += 1.0 / len(won) if standings[board.turn].name in won else 0.0
    return tally


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 4), st.integers(0, 50), st.booleans())
def test_the_coachs_tallies_are_the_random_bots_through_push(
    seed: int, players: int, takes: int, reveals: bool
) -> None:
    """The same seed gives the same tallies as before `play_out`: its games are the random
    bot's, move for move, from positions of every Day, dealt or revealed."""
    from companion.coach.chances import rollouts

    ed = load_edition("reference")
    rng = random.Random(seed)
    names = ["Ann", "Ben", "Cy", "Dee"][:players]
    live = Board(make_setup(ed, names) if reveals else random_setup(ed, names, rng))
    while live.next_seq - players < takes or live.needs_itinerary() or live.waiting_position() >= 0:
        if live.finished:
            return
        if live.waiting_position() >= 0:
            day = [c.id for i, c in enumerate(ed.cards) if c.day == live.day and not live.revealed >> i & 1]
            live.push(Reveal(rng.choice(day)))
        else:
            live.push(random_bot(live, rng))
    moves = candidates(live)
    random_playouts = rollouts(live, moves, 3, seed, greedy=0.0)  # the random bot's games
    assert random_playouts == _rollouts_through_push(live, moves, 3, seed)


def test_from_snapshot_on_a_later_day_refills_from_that_days_deck() -> None:
    ed = load_edition("reference")
    rng = random.Random(3)
    board = Board(random_setup(ed, ["Ann", "Ben", "Cy"], rng))
    while board.day < 2:
        board.push(random_bot(board, rng))
    copy = Board.from_snapshot(board.setup, board.snapshot())
    for _ in range(12):
        event = random_bot(board, rng)
        assert board.push(event) is None
        assert copy.push(event) is None
    assert copy.snapshot() == board.snapshot()


# --- the coach ---------------------------------------------------------------------------------


def _gold_board() -> Board:
    """Two players, no itineraries, six cards a Day (no refills): "gold" gives 8 crystals."""
    day1 = [card("gold", 1500, 3, ["crystal"] * 8), *filler("a", 5, 1, 1600)]
    ed = edition([*day1, *filler("b", 6, 2, 1700), *filler("c", 6, 3, 1800)], ancestors={"2": 0})
    return board(ed, ["Ann", "Ben"])


def test_a_clearly_winning_card_gets_the_highest_estimate() -> None:
    gold = _gold_board()
    advice = evaluate(gold, per_candidate=60, seed=1)
    assert advice.player == gold.player_to_move
    best = advice.best
    assert best is not None and best.card == "gold"
    others = [c for c in advice.cards if c.card != "gold"]
    assert others and all(best.win > c.win and best.score > c.score for c in others)


def test_the_coach_is_deterministic_with_a_seed_and_lists_only_cards_that_can_be_taken() -> None:
    ed = load_edition("reference")
    rng = random.Random(5)
    board = Board(random_setup(ed, ["Ann", "Ben", "Cy"], rng))
    for _ in range(14):
        board.push(random_bot(board, rng))
    while board.needs_itinerary():
        board.push(random_bot(board, rng))
    first, again = evaluate(board, 8, seed=7), evaluate(board, 8, seed=7)
    assert first == again
    takeable = {o.card for o in board.take_options()}
    assert {c.card for c in first.cards} == takeable
    for c in first.cards:
        assert board.check(Take(c.card, None, c.spend, ())) is None
        assert 0 <= c.win <= 1 and c.rollouts == 8
    assert abs(sum(w for _, w in first.players) - 1) < 1e-9
    mover = dict(first.players)[board.names[board.turn]]
    assert first.best is not None and abs(mover - first.best.win) < 1e-9  # everyone's, after the best card
    assert [n for n, _ in first.players] == list(board.names)
    wins = [c.win for c in first.cards]
    assert wins == sorted(wins, reverse=True)


def test_the_coach_never_reads_the_real_order_of_unseen_cards() -> None:
    """Two games alike in everything the table has seen, their unseen cards in another
    order: the same seed gives the same advice."""
    ed = load_edition("reference")
    names = ["Ann", "Ben"]
    rng = random.Random(11)
    setup = random_setup(ed, names, rng)
    board = Board(setup)
    for _ in range(9):
        board.push(random_bot(board, rng))
    while board.needs_itinerary():
        board.push(random_bot(board, rng))
    day = board.day - 1
    decks = list(setup.decks or ())
    seen = decks[day][: board.drawn]
    unseen = list(decks[day][board.drawn :])
    decks[day] = seen + tuple(reversed(unseen))
    decks[2] = tuple(reversed(decks[2]))
    other = Board.from_snapshot(
        make_setup(ed, names, list(setup.watch_stack), {
            d: [ed.cards[i].id for i in deck] for d, deck in zip(("I", "II", "III"), decks, strict=True)
        }),
        board.snapshot(),
    )  # fmt: skip
    assert evaluate(board, 5, seed=3) == evaluate(other, 5, seed=3)


def test_a_redeal_keeps_what_was_seen_and_deals_only_unseen_cards() -> None:
    ed = load_edition("reference")
    setup = make_setup(ed, ["Ann", "Ben"])  # the live table's form: cards revealed one by one
    board = Board(setup)
    rng = random.Random(2)
    day_one = [i for i, c in enumerate(ed.cards) if c.day == 1]
    for card_index in rng.sample(day_one, 4):  # four of the six row positions revealed
        assert board.push(Reveal(ed.cards[card_index].id)) is None
    dealt, hidden = redeal(board, rng)
    assert dealt.decks is not None
    deck = dealt.decks[0][board.drawn :]
    assert len(hidden) == sum(1 for c in board.row if c == HIDDEN) == 2
    shown = {c for c in board.row if c >= 0}
    assert not shown & set(deck) and not shown & set(hidden) and not set(hidden) & set(deck)
    assert len(deck) + board.drawn == len(day_one)
    assert sorted(dealt.decks[1]) == [i for i, c in enumerate(ed.cards) if c.day == 2]


def test_candidates_try_each_card_with_and_without_crystals() -> None:
    gold = _gold_board()
    moves = candidates(gold)
    assert ("gold", 0) in moves and ("gold", 1) in moves  # 1 crystal held, gold costs 3 hours
    assert {m[0] for m in moves} == {o.card for o in gold.take_options()}


def test_worker_processes_give_an_answer_with_every_card() -> None:
    gold = _gold_board()
    pool = CoachPool(gold.edition, workers=2)
    try:
        advice = pool.evaluate(gold, 20, None, seed=4)
    finally:
        pool.release()
    assert advice.best is not None and advice.best.card == "gold"
    assert {c.card for c in advice.cards} == {o.card for o in gold.take_options()}
    assert advice.rollouts == 20 * len(candidates(gold))


def test_the_coach_bot_plays_a_whole_game_legally() -> None:
    game = _gold_board()
    bot = coach_bot(2)
    rng = random.Random(1)
    while not game.finished:
        assert game.push(bot(game, rng)) is None
    assert game.winners()


def test_the_pool_is_sized_by_the_cores_and_the_memory_available() -> None:
    """Issue 24 item 3: a Pi Zero 2 W has 4 cores and about 200 MB free after boot; the
    pool takes a core less than the machine has and at most half the memory available."""
    from companion.coach.chances import WORKER_BYTES, pool_size

    mb = 2**20
    assert pool_size(4, 200 * mb) == 3  # a Zero 2 W after boot: 3 workers fit
    assert pool_size(4, 100 * mb) == 100 * mb // 2 // WORKER_BYTES < 3  # a busier Zero: fewer
    assert pool_size(4, 40 * mb) == 0  # none fits: the coach works in the table's process
    assert pool_size(16, 64 * 1024 * mb) == 15 and pool_size(2, 64 * 1024 * mb) == 1
    assert pool_size(1, None) == 1 and pool_size(None, None) == 1  # unknown: one worker


def test_the_service_sizes_its_pool_from_meminfo(monkeypatch: Any) -> None:
    from companion.coach import service as coach_service

    service = coach_service.CoachService(lambda: None)  # type: ignore[arg-type,return-value]
    monkeypatch.setattr(coach_service.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(coach_service, "mem_available", lambda: 200 * 2**20)
    assert service.pool_workers() == 3
    monkeypatch.setattr(coach_service, "mem_available", lambda: 30 * 2**20)
    assert service.pool_workers() == 0
    service.workers = 2  # set by hand (tests, benchmarks): kept
    assert service.pool_workers() == 2


# --- the greedy playout (issue 24 item 2) ------------------------------------------------------


def _legal_moves(game: Board) -> list[Event]:
    """Every move the player to move may make: an Itinerary, or each card with each spend."""
    name = game.player_to_move
    if game.itinerary[game.turn] < 0 and game.has_itineraries:
        return [ChooseItinerary(name, i) for i in game.itinerary_choices(name)]
    return [Take(o.card, None, spend, ()) for o in game.take_options() for spend in range(o.max_crystals + 1)]


def _reached_by_a_legal_move(recorded: Board, target: Any) -> bool:
    """Push on ``recorded`` the legal move that gives the state ``target``, if one does."""
    for event in _legal_moves(recorded):
        if recorded.push(event) is None:
            if recorded.snapshot() == target:
                return True
            recorded.pop()
    return False


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(editions(), st.integers(1, 4), st.integers(0, 2**32 - 1), st.sampled_from([0.5, 1.0]))
def test_a_greedy_playout_plays_only_legal_moves(
    obj: dict[str, Any], players: int, seed: int, greedy: float
) -> None:
    """Each move of a greedy playout is one the board accepts: after every single move, some
    legal move pushed on a recorded board gives the same whole state, to the game's end."""
    setup, rng = _drawn_setup(obj, players, seed, False)
    fast, recorded = Board(setup), Board(setup)
    for _ in _steps(fast):
        try:
            assert play_out(fast, rng, 1, greedy) == 1
        except RuntimeError:  # stuck: too few cards for this many players
            return
        assert _reached_by_a_legal_move(recorded, fast.snapshot())
    assert recorded.standings() == fast.standings()
    _assert_result_is_the_standings(fast)


def test_greedy_playouts_score_more_than_random_ones() -> None:
    """The heuristic is used and is worth something: from the same deals, players who follow
    it end with more points on average than random players (a wide margin, seeded)."""
    ed = load_edition("reference")
    totals = {0.0: 0, 1.0: 0}
    for seed in range(30):
        setup = random_setup(ed, ["Ann", "Ben", "Cy"], random.Random(seed))
        for greedy in totals:
            game = Board(setup)
            play_out(game, random.Random(seed), 2000, greedy)
            assert game.finished
            totals[greedy] += sum(s.total for s in game.standings())
    assert totals[1.0] > 1.2 * totals[0.0], totals
