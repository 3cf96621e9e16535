"""The suite needs nothing beside the repository (issue 12, item 10).

The repository's files are copied to a folder with no ``shared/`` beside it and the
contract tests run there, importing the copy's own package."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", "tests/test_contract.py"],
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
