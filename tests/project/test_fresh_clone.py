"""The README's commands work from a fresh clone.

The suite needs nothing beside the repository (issue 12, item 10): the repository's
files are copied to a folder with no ``shared/`` beside it and the contract tests run
there, importing the copy's own package. ``scripts/companion run`` needs only the
runtime (issue 17, item 5): a fresh clone serves the page without the test tools, and
``scripts/bootstrap`` installs each level once, in either order."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_contract_tests_pass_in_a_copy_with_nothing_beside_it(tmp_path: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if listed.returncode == 0:
        files = [name for name in listed.stdout.decode().split("\0") if name]
    else:  # not a git checkout (an sdist): every file under the root but the virtualenv
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts]
    files += [str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "records").iterdir()]  # even uncommitted
    copy = tmp_path / "alone" / "repo"
    for name in set(files):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    assert not (copy.parent.parent / "shared").exists() and not (copy.parent / "shared").exists()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", "tests/table/test_contract.py"],
        cwd=copy,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "../shared is not beside" in done.stdout  # only the drift check had nothing to compare
    which = subprocess.run(
        [sys.executable, "-c", "import companion; print(companion.__file__)"],
        cwd=copy,
        capture_output=True,
        text=True,
        check=True,
    )
    assert which.stdout.strip().startswith(str(copy)), which.stdout


def _copy_of_the_repository(copy: Path) -> None:
    """The checkout's files as a fresh clone has them (tracked files, as they are now)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    for name in (n for n in listed.stdout.decode().split("\0") if n):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _page_answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_scripts_companion_run_serves_the_page_from_a_fresh_clone_without_the_test_tools(
    tmp_path: Path,
) -> None:
    """The README's first command on a fresh clone: its own environment, the runtime only
    (issue 17: the first run no longer installs pytest, mypy, Playwright...), the page up."""
    copy = tmp_path / "clone"
    _copy_of_the_repository(copy)
    assert not (copy / ".venv").exists()
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    env["PYTHON"] = sys._base_executable  # the machine's Python, as a newcomer's shell has it
    log = tmp_path / "run.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            ["scripts/companion", "run", "--port", str(port), "--data-dir", str(tmp_path / "data")],
            cwd=copy, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 600  # a cold pip cache downloads everything
            while not _page_answers(f"http://127.0.0.1:{port}/"):
                assert process.poll() is None, log.read_text()[-3000:]
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                time.sleep(0.3)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(30)
    venv_python = str(copy / ".venv" / "bin" / "python")

    # run from elsewhere (a folder holding a package would be imported from the working directory)
    def ask(code: str) -> str:
        done = subprocess.run(
            [venv_python, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
        )
        return done.stdout

    found = ask(
        "import importlib.util as u; print(*(m for m in "
        "('companion', 'flask', 'pytest', 'mypy', 'ruff', 'playwright', 'hypothesis') if u.find_spec(m)))"
    ).split()
    assert found == ["companion", "flask"], found
    assert (copy / ".venv" / ".runtime-stamp").exists() and not (copy / ".venv" / ".installed-stamp").exists()
    assert ask("import companion; print(companion.__file__)").startswith(str(copy))  # the clone's, editable


def _fake_python(tmp_path: Path) -> tuple[Path, Path]:
    """A stand-in for ``python3``: ``-m venv .venv`` makes a .venv/bin/python whose pip only
    writes down what it was asked to install."""
    calls = tmp_path / "pip-calls"
    fake_pip = f'#!/bin/sh\necho "$*" >> {calls}\n'
    python = tmp_path / "python"
    make_venv = 'mkdir -p .venv/bin && cat > .venv/bin/python <<"EOS"'
    python.write_text(f"#!/bin/sh\n{make_venv}\n{fake_pip}EOS\nchmod +x .venv/bin/python\n")
    python.chmod(0o755)
    return python, calls


@pytest.mark.parametrize(
    ("order", "installs"),
    [
        # a newcomer who runs the companion first, then the tests: the tools come on the first test run
        (["run", "dev", "run", "dev"], [["-e ."], ["-e .[dev]"], [], []]),
        # one who runs the tests first: the companion then needs nothing more
        (["dev", "run", "dev"], [["-e .[dev]"], [], []]),
    ],
)
def test_the_companion_installs_the_runtime_and_the_tests_the_tools_in_either_order(
    tmp_path: Path, order: list[str], installs: list[list[str]]
) -> None:
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "bootstrap", repo / "scripts" / "bootstrap")
    (repo / "pyproject.toml").write_text("")
    python, calls = _fake_python(tmp_path)
    for level, expected in zip(order, installs, strict=True):
        calls.write_text("")
        args = ["run"] if level == "run" else []
        out = subprocess.run(
            ["bash", str(repo / "scripts" / "bootstrap"), *args],
            capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "PYTHON": str(python)},
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        asked = [line.removeprefix("-m pip install ") for line in calls.read_text().splitlines()]
        assert [a for a in asked if a != "--upgrade pip"] == expected, (level, asked)
    later = time.time() + 60  # a changed pyproject.toml installs again, at the level asked
    os.utime(repo / "pyproject.toml", (later, later))
    calls.write_text("")
    subprocess.run(
        ["bash", str(repo / "scripts" / "bootstrap"), "run"],
        check=True, capture_output=True, env={"PATH": "/usr/bin:/bin", "PYTHON": str(python)},
    )  # fmt: skip
    assert "-m pip install -e ." in calls.read_text().splitlines()
