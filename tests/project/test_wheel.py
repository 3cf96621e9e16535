"""The package a Raspberry Pi gets: a wheel built from the repository, installed non-editably.

`systemd/install-pi.sh` installs the companion with ``pip install .``, not as an
editable checkout, so the page must travel inside the package. These tests build
the wheel, check it holds every module and every file of the page, install it into
a fresh virtual environment (its dependencies borrowed from the test environment,
so nothing is downloaded but the build backend), start ``companion run`` from
there, away from the checkout, and fetch the page and each of its assets.
"""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest

from tests.support.daemon import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if build.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{build.stderr[-2000:]}")
    (found,) = out.glob("trekking_companion-*.whl")
    return found


def test_the_wheel_holds_every_module_and_every_file_of_the_page(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "companion").rglob("*.py")}
    assert modules - names == set(), "modules missing from the wheel (add their package to pyproject.toml)"
    page = {
        "companion/page/" + p.relative_to(ROOT / "web").as_posix()
        for p in (ROOT / "web" / "static").rglob("*")
        if p.is_file()
    }
    assert page, "web/static is empty?"
    assert page - names == set()
    assert {"companion/openapi.json", "companion/config.example.toml"} <= names
    # every data file of the package (the editions' JSON, the itineraries' memos, the hall's pages)
    data = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "companion").rglob("*")
        if p.is_file() and p.suffix in (".json", ".memo", ".toml", ".html") and "__pycache__" not in p.parts
    }
    assert "companion/editions/itineraries.memo" in data
    assert data - names == set(), "data files missing from the wheel (add them to pyproject.toml)"


def test_companion_run_from_the_installed_wheel_serves_the_page_and_its_assets(
    wheel: Path, tmp_path: Path
) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(wheel)],
        check=True,
        timeout=300,
    )
    # The dependencies come from the test environment: a plain path in a .pth file
    # (nested .pth files, such as the checkout's editable hook, are not read from it).
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    Path(site, "borrowed-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    where = subprocess.run(
        [str(python), "-c", "import companion.web.app as w; print(w.__file__); print(w.WEB_ROOT)"],
        check=True, capture_output=True, text=True, cwd=tmp_path,
    ).stdout.split()  # fmt: skip
    assert all(Path(p).is_relative_to(env_dir) for p in where), where

    port = free_port()
    proc = subprocess.Popen(
        [str(env_dir / "bin" / "companion"), "run", "--mock", "--data-dir", str(tmp_path / "data"),
         "--port", str(port), "--pin", "2468"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        index = _get(port, "/", proc)
        assert b"<html" in index.lower()
        referenced = set(re.findall(rb'(?:src|href)="(/static/[^"?#]+)', index))
        assert referenced, "the page references no asset?"
        shipped = {
            "/static/" + p.relative_to(ROOT / "web" / "static").as_posix()
            for p in (ROOT / "web" / "static").rglob("*")
            if p.is_file()
        }
        for path in sorted({r.decode() for r in referenced} | shipped):
            assert _get(port, path, proc), path
        assert b'"expect"' in _get(port, "/api/state", proc)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=ANSWER_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


#: How long ``companion run`` may take to answer its first request: a wait, not a measure (a
#: loaded 2-core machine starts it in tens of seconds; it ends only a wait that would never end).
START_SECONDS = 240.0
#: How long one request may wait for its answer before it is sent again.
ANSWER_SECONDS = 60.0


def _get(port: int, path: str, proc: subprocess.Popen[bytes]) -> bytes:
    """``path``'s body, once the companion answers: a refused connection (not listening yet) or
    an answer slower than `ANSWER_SECONDS` is tried again until `START_SECONDS` have passed."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=ANSWER_SECONDS) as response:
                assert response.status == 200, path
                body: bytes = response.read()
                return body
        except urllib.error.HTTPError as exc:
            pytest.fail(f"GET {path} answered {exc.code}: {exc.read()[:200]!r}")
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                pytest.fail(f"companion run exited: {err[-1000:]}")
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
