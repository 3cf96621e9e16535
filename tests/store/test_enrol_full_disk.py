"""Issue 16, item 10: enrolling and unbinding on a full or read-only disk say so (507), never 500.

The page's /enroll with corrected values writes the owner's edition file first, and the edition
page's unbind deletes a tag from the store: both refused writes are answered with the words the
other routes use for a full disk, and nothing changes.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from companion.records.trekking import TREKKING
from companion.store.log import DiskFull, Store
from tests.support.tables import api_client

PIN = {"X-Table-Pin": "2468"}


@pytest.fixture
def env(tmp_path: Path) -> Any:
    with api_client(tmp_path) as client:
        yield client


def refuse_writes(monkeypatch: Any, code: int) -> None:
    """Every edition file write fails as a full (ENOSPC) or read-only (EROFS) disk makes it fail."""
    import companion.editions.writes

    def refused(*_: Any) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(companion.editions.writes.os, "replace", refused)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_enrolling_with_values_on_a_refusing_disk_is_a_507_and_enrols_nothing(
    env: Any, monkeypatch: Any, code: int
) -> None:
    http, rt = env
    folder = rt.store.path.parent / "editions"
    before = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    refuse_writes(monkeypatch, code)
    body = {"tag": "ABCD1234", "card": "I12", "hours": 3, "gains": ["event"]}
    answer = http.post("/api/enroll", json=body, headers=PIN)
    assert answer.status_code == 507, answer.get_json()
    said = answer.get_json()
    assert said["code"] == "edition_not_saved" and "Free space on the companion" in said["error"]
    assert rt.store.tags() == {}, "the tag is not bound to values that were not saved"
    after = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    assert after == before, "no edition and no temporary file left"


def test_enrolling_on_a_full_store_says_the_disk_is_full(env: Any, monkeypatch: Any) -> None:
    http, rt = env

    def full(*_: Any, **__: Any) -> None:
        raise DiskFull("store_full_write", folder="/srv/companion")

    monkeypatch.setattr(rt.store, "_write", full)
    answer = http.post("/api/enroll", json={"tag": "AB01", "card": "I12"}, headers=PIN)
    assert answer.status_code == 507 and answer.get_json()["code"] == "disk_full"


class RefusesDelete:
    """The store's SQLite connection, refusing every DELETE as a full disk (SQLITE_FULL) or a
    disk remounted read-only (SQLITE_READONLY) does."""

    def __init__(self, db: sqlite3.Connection, message: str, code: int) -> None:
        self.db, self.message, self.code = db, message, code

    def execute(self, sql: str, args: Any = ()) -> Any:
        if sql.startswith("DELETE"):
            error = sqlite3.OperationalError(self.message)
            error.sqlite_errorcode = self.code  # type: ignore[attr-defined]
            raise error
        return self.db.execute(sql, args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


@pytest.mark.parametrize(
    ("message", "sqlite_code", "status", "code", "words"),
    [
        ("database or disk is full", 13, 507, "disk_full", "Free some space"),
        ("attempt to write a readonly database", 8, 503, "store_write_failed", "readonly"),
    ],
)
def test_unbinding_on_a_refusing_disk_says_why_and_keeps_the_tag(
    env: Any, message: str, sqlite_code: int, status: int, code: str, words: str
) -> None:
    http, rt = env
    rt.store.enroll("04AA", "I07", "reference")
    real = rt.store._db
    rt.store._db = RefusesDelete(real, message, sqlite_code)  # type: ignore[assignment]
    try:
        answer = http.delete("/api/library/tags/04AA", headers=PIN)
    finally:
        rt.store._db = real
    assert answer.status_code == status, answer.get_json()
    assert answer.get_json()["code"] == code and words in answer.get_json()["error"]
    assert rt.store.tags() == {"04AA": "I07"}
    assert http.delete("/api/library/tags/04AA", headers=PIN).status_code == 200, "the disk is back: it goes"
    assert rt.store.tags() == {}


def test_the_cli_unbind_on_a_full_disk_says_so_and_keeps_the_tag(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    from companion.run.cli import main

    store = Store(tmp_path, TREKKING)
    store.enroll("04AA", "I07", "reference")
    store.close()

    def full(*_: Any, **__: Any) -> None:
        raise DiskFull("store_full_write", folder="the data")

    monkeypatch.setattr(Store, "_write", full)
    assert main(["edition", "tags", "--unbind", "04AA", "--data-dir", str(tmp_path)]) == 2
    assert "the disk holding the data is full" in capsys.readouterr().err
    monkeypatch.undo()
    assert Store(tmp_path, TREKKING).tags() == {"04AA": "I07"}


def test_a_console_enrolment_whose_values_cannot_be_written_says_so_and_enrols_nothing(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from companion.editions import shipped_edition
    from companion.table.enrol import Enroller

    store = Store(tmp_path, TREKKING)
    answers = iter(["marathon", "1", "4 event"])
    said: list[str] = []
    own = tmp_path / "editions" / "reference-mine.json"
    enroller = Enroller(store, shipped_edition("reference"), own, lambda _: next(answers, None), said.append)
    refuse_writes(monkeypatch, errno.ENOSPC)
    assert enroller.enroll_one("AA01"), "the session goes on with the next tag"
    assert "could not be written (No space left on device)" in said[-1] and "not enrolled" in said[-1]
    assert store.tags() == {} and not own.exists()
    store.close()
