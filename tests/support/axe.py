"""axe-core, the accessibility checker the browser tests run on the page: one pinned release,
fetched once and checked against the registry's integrity, injected into a page."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

from tests.support.tables import require_tool

ROOT = Path(__file__).resolve().parents[2]

#: axe-core pinned to one release and checked against the npm registry's published
#: integrity (bump both together: ``npm view axe-core@X.Y.Z dist.integrity``).
AXE_VERSION = "4.14.1"
AXE_INTEGRITY = (
    "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
)


def axe_script() -> Path:
    """The pinned axe-core's ``axe.min.js``, kept in ``.cache/axe`` and served to the page from
    there (injected, never fetched by the page). Fetched once with ``npm pack`` (the exact version,
    its tarball checked against `AXE_INTEGRITY`); without npm or the registry the test is skipped
    on a developer's machine and fails in CI (`require_tool`)."""
    given = os.environ.get("AXE_CORE")
    if given:
        return Path(given)
    folder = ROOT / ".cache" / "axe"
    script = folder / f"axe-core-{AXE_VERSION}.min.js"
    if not script.exists() and shutil.which("npm"):
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "pack", "--silent", f"axe-core@{AXE_VERSION}", "--pack-destination", str(folder)],
            check=False,
            timeout=300,
            capture_output=True,
        )
        tarball = folder / f"axe-core-{AXE_VERSION}.tgz"
        if tarball.exists():
            algorithm, digest = AXE_INTEGRITY.split("-", 1)
            actual = base64.b64encode(hashlib.new(algorithm, tarball.read_bytes()).digest()).decode()
            assert actual == digest, f"{tarball}: not axe-core {AXE_VERSION} as published"
            with tarfile.open(tarball) as archive:
                member = archive.extractfile("package/axe.min.js")
                assert member is not None
                script.write_bytes(member.read())
    require_tool(
        script.exists(),
        f"axe-core {AXE_VERSION} is not in {folder} and npm could not fetch it",
        f"npm pack axe-core@{AXE_VERSION} --pack-destination {folder}",
    )
    return script


def axe(page: Any, script: Path) -> list[str]:
    page.add_script_tag(path=str(script))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
