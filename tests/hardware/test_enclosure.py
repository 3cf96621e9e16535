"""The box a maker prints: scripts/render-enclosure turns hardware/enclosure/companion-box.scad
into STLs that are closed solids of the documented size, and a drawing of the lid's holes."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from tests.support.tables import require_tool

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "render-enclosure"
SVG = "{http://www.w3.org/2000/svg}"


def needs_openscad() -> None:
    """The box is rendered by OpenSCAD: CI must have it, a developer's run skips without it."""
    require_tool(
        shutil.which("openscad") is not None,
        "openscad is not installed",
        "Debian's openscad; .ci/run installs it",
    )


Vertex = tuple[float, float, float]


def triangles(stl: Path) -> list[tuple[Vertex, Vertex, Vertex]]:
    """The facets of an ASCII STL, as OpenSCAD writes it."""
    text = stl.read_text()
    assert text.startswith("solid"), "OpenSCAD writes ASCII STL"
    points = [
        (float(x), float(y), float(z)) for x, y, z in re.findall(r"vertex\s+(\S+)\s+(\S+)\s+(\S+)", text)
    ]
    assert points and len(points) % 3 == 0
    return [(points[i], points[i + 1], points[i + 2]) for i in range(0, len(points), 3)]


def closed(tris: list[tuple[Vertex, Vertex, Vertex]]) -> bool:
    """Every edge is met exactly once in each direction: a closed, consistently oriented surface."""
    directed = Counter((a, b) for t in tris for a, b in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])))
    return all(n == 1 and directed[(b, a)] == 1 for (a, b), n in directed.items())


def volume(tris: list[tuple[Vertex, Vertex, Vertex]]) -> float:
    """The enclosed volume (divergence theorem); positive when the normals point out."""
    total = 0.0
    for (ax, ay, az), (bx, by, bz), (cx, cy, cz) in tris:
        total += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
    return total / 6


def size(tris: list[tuple[Vertex, Vertex, Vertex]]) -> tuple[float, float, float]:
    points = [p for t in tris for p in t]
    return tuple(max(p[i] for p in points) - min(p[i] for p in points) for i in range(3))  # type: ignore[return-value]


def covering(tris: list[tuple[Vertex, Vertex, Vertex]], x: float, y: float) -> int:
    """How many facets lie over or under the point (x, y): 0 where a hole goes right through."""
    n = 0
    for (ax, ay, _), (bx, by, _), (cx, cy, _) in tris:
        d = (by - cy) * (ax - cx) + (cx - bx) * (ay - cy)
        if abs(d) < 1e-9:
            continue  # a wall, seen edge-on from above
        u = ((by - cy) * (x - cx) + (cx - bx) * (y - cy)) / d
        v = ((cy - ay) * (x - cx) + (ax - cx) * (y - cy)) / d
        n += u >= 0 and v >= 0 and u + v <= 1
    return n


def test_the_script_refuses_a_ring_or_board_it_has_no_model_for(tmp_path: Path) -> None:
    for option, value, names in (("--rings", "60", "12,16,24"), ("--boards", "pi2", "zero2w,pi3,pi4,pi5")):
        argv = [str(SCRIPT), option, value, "--out", str(tmp_path)]
        out = subprocess.run(argv, capture_output=True, text=True)
        assert out.returncode == 2, out.stderr
        assert f"{option} '{value}': use some of {names}" in out.stderr
        assert "Traceback" not in out.stderr
    assert not any(tmp_path.iterdir()), "nothing is rendered after a refusal"


def test_the_closed_check_sees_a_hole() -> None:
    """The check below would pass anything if it could not see an open surface."""
    a, b, c, d = (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
    tetra = [(a, c, b), (a, b, d), (a, d, c), (b, c, d)]
    assert closed(tetra) and volume(tetra) == pytest.approx(1 / 6)
    assert not closed(tetra[:3])


def test_a_24_led_lid_and_a_pi4_base_render_as_closed_solids_of_the_documented_size(tmp_path: Path) -> None:
    needs_openscad()
    out = subprocess.run(
        [str(SCRIPT), "--rings", "24", "--boards", "pi4", "--fn", "24", "--out", str(tmp_path)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    gap = re.search(r"24-LED ring: ([\d.]+) mm of lid between the reader's board and the ring", out.stdout)
    assert gap and float(gap.group(1)) >= 20, "hardware/README.md: keep the ring 2 cm from the antenna"

    lid = triangles(tmp_path / "lid-24.stl")
    assert closed(lid)
    w, d, h = size(lid)
    assert (round(w), round(d)) == (210, 130)
    # 3 mm plate, its lip and the ring's tube hanging below it (6 mm of air over the LEDs)
    assert 3 + 9 <= h <= 3 + 15, h
    assert 210 * 130 * 2 < volume(lid) < 210 * 130 * 3.5, "a plate with holes, not a block"

    base = triangles(tmp_path / "base-pi4.stl")
    assert closed(base)
    w, d, h = size(base)
    assert (round(w), round(d)) == (210, 130) and 45 <= h <= 52, (w, d, h)
    assert 0 < volume(base) < 210 * 130 * 12, "a hollow tray"

    disc = triangles(tmp_path / "diffuser-24.stl")
    assert closed(disc)
    assert size(disc)[0] == pytest.approx(66 + 0.6 + 8 - 0.6, abs=0.5), "the 66 mm ring's diffuser"

    drawing = ET.parse(tmp_path / "lid-24.svg").getroot()
    circles = {c.get("id"): float(c.get("r", "0")) for c in drawing.iter(f"{SVG}circle")}
    assert [circles[f"button-{i}"] * 2 for i in (1, 2, 3)] == [12.2] * 3
    assert circles["ring-window"] * 2 == pytest.approx(65), "1 mm inside the 66 mm ring: every LED shows"
    assert sum(1 for k in circles if k and k.startswith("screw-")) == 4
    # The drawing's holes are holes in the STL: nothing above or below their centres. The lid is
    # exported top face down, so the drawing's y (downwards from its top edge) is the STL's y.
    outline = next(drawing.iter(f"{SVG}rect"))
    m = float(outline.get("x", "0"))
    for name in ("button-1", "button-2", "button-3", "ring-window", "screw-1", "screw-4"):
        hole = next(c for c in drawing.iter(f"{SVG}circle") if c.get("id") == name)
        x, y = float(hole.get("cx", "0")) - m + 0.013, float(hole.get("cy", "0")) - m + 0.017
        assert covering(lid, x, y) == 0, f"{name} at ({x:.1f}, {y:.1f}) is not a hole in the lid"
    assert covering(lid, 60.013, 130 - 45.017) >= 2, "and the plate between them is solid"
    text = " ".join(t.text or "" for t in drawing.iter(f"{SVG}text"))
    assert "Crystal (blue) button, through: x 60, y 20; Ø 12.2" in text
    assert "ring window, through: x 122, y 78; Ø 65" in text


def test_the_drawings_kept_for_makers_without_openscad_are_the_models(tmp_path: Path) -> None:
    """hardware/enclosure/drawings/ is what --drawings-only writes from the model today."""
    needs_openscad()
    out = subprocess.run(
        [str(SCRIPT), "--drawings-only", "--out", str(tmp_path)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    kept = ROOT / "hardware" / "enclosure" / "drawings"
    for ring in (12, 16, 24):
        fresh = (tmp_path / f"lid-{ring}.svg").read_text()
        assert fresh == (kept / f"lid-{ring}.svg").read_text(), (
            f"lid-{ring}.svg is stale: run scripts/render-enclosure --drawings-only --out {kept}"
        )
    assert not list(tmp_path.glob("*.stl")), "drawings only"
