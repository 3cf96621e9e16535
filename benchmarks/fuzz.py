"""Coverage-guided fuzzing (atheris, libFuzzer) of the text a user can hand the companion.

Run: ``.venv/bin/python -m benchmarks.fuzz record|edition|config [--runs N] [--seconds S]``

Hypothesis already generates event streams and record lines from their grammar;
atheris complements it where that helps most, on the parsers: it mutates real
files byte by byte and keeps any input that reaches new code, so it finds the odd
corner (a number where a list was expected three levels down) that no grammar
thought of. Each target accepts only the parser's documented answers:

- ``record``: ``replay_text`` replays it or raises ``RecordError`` (a one-line
  reason). A replay's standings add up (total = track + crystals + treks), and the
  record the companion would export from it replays to the same standings.
- ``edition``: ``read_edition_text`` returns an edition or raises ``EditionError``
  whose every problem names where it is, and the message names the file.
- ``config``: ``parse_config`` returns settings or raises ``ConfigError`` naming
  the file.

Anything else (another exception, a broken invariant) is a crash: libFuzzer
prints the input and the traceback, saves the input under ``--artifacts`` and the
script exits non-zero. Seeds are built here from the shipped files, so the run
needs nothing outside the repository; ``--seed`` makes it repeatable.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["companion"]):
    from companion.coach.simulate import play_game, random_setup
    from companion.editions import load_edition, read_edition_text
    from companion.engine.edition import EditionError
    from companion.records.trekking import RecordError, replay_stream, replay_text, write_record
    from companion.util.config import ConfigError, parse_config

ROOT = Path(__file__).resolve().parent.parent
SHARED_EXAMPLES = ROOT.parent / "shared" / "contract" / "examples"


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def fuzz_record(data: bytes) -> None:
    try:
        replay = replay_stream(io.BytesIO(data))  # the bytes as `companion replay` reads them
    except RecordError as exc:
        assert str(exc) and "\n" not in str(exc), f"a record error is one line: {exc!r}"
        return
    standings = [s.to_json() for s in replay.board.standings()]
    for s in standings:
        assert s["total"] == s["track"] + s["crystals"] + s["trek_points"], s
    board = replay.board
    exported = write_record(board.setup, board.moves, inline_edition=True)
    again = replay_text(exported)
    assert not again.rejected, f"the exported record replays with rejections: {list(again.rejected)[:2]}"
    assert [s.to_json() for s in again.board.standings()] == standings, "export changed the standings"


def fuzz_edition(data: bytes) -> None:
    try:
        read_edition_text(_text(data), "fuzz.json", "fuzz")
    except EditionError as exc:
        assert exc.problems, "an edition error lists its problems"
        assert "fuzz.json" in str(exc), f"the message names the file: {exc}"
        for problem in exc.problems:
            assert problem.location and problem.message, problem


def fuzz_config(data: bytes) -> None:
    try:
        parse_config(_text(data), "fuzz.toml")
    except ConfigError as exc:
        assert str(exc).startswith("fuzz.toml"), f"the message names the file: {exc}"


TARGETS: dict[str, Callable[[bytes], None]] = {
    "record": fuzz_record,
    "edition": fuzz_edition,
    "config": fuzz_config,
}


def seeds(target: str) -> list[str]:
    """Valid inputs to start from: the mutations that matter are near-misses."""
    if target == "record":
        found = [p.read_text(encoding="utf-8") for p in sorted(SHARED_EXAMPLES.glob("*.jsonl"))]
        edition, rng = load_edition("reference"), random.Random(1)
        for names in (["Ann"], ["Ann", "Ben"], ["Ann", "Ben", "Cy", "Dee"]):
            board = play_game(random_setup(edition, names, rng), "random", rng)[0]
            found.append(write_record(board.setup, board.moves))
        found.append(write_record(board.setup, board.moves[:12], inline_edition=True))
        return found
    if target == "edition":
        reference = json.loads(
            (ROOT / "companion" / "editions" / "reference.json").read_text(encoding="utf-8")
        )
        trimmed = {**reference, "cards": reference["cards"][::9], "itineraries": reference["itineraries"][:3]}
        return [json.dumps(reference, indent=1), json.dumps(trimmed, indent=1)]
    return [(ROOT / "companion" / "config.example.toml").read_text(encoding="utf-8")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", choices=sorted(TARGETS))
    parser.add_argument("--runs", type=int, default=0, help="inputs to try (0: until --seconds)")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--artifacts", default="test-artifacts/fuzz", help="where crashing inputs are saved")
    args = parser.parse_args()
    Path(args.artifacts).mkdir(parents=True, exist_ok=True)
    # libFuzzer ends the process itself, so the corpus lives beside the artifacts
    corpus = Path(args.artifacts) / f"corpus-{args.target}"
    shutil.rmtree(corpus, ignore_errors=True)
    corpus.mkdir()
    for n, text in enumerate(seeds(args.target)):
        (corpus / f"seed{n}").write_text(text, encoding="utf-8")
    flags = [
        f"-seed={args.seed}",
        f"-artifact_prefix={args.artifacts}/{args.target}-",
        "-print_final_stats=1",
    ]
    flags.append(f"-runs={args.runs}" if args.runs else f"-max_total_time={args.seconds}")
    atheris.Setup([sys.argv[0], *flags, str(corpus)], TARGETS[args.target])
    atheris.Fuzz()  # ends the process: status 0 when the budget ran out with no crash
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
