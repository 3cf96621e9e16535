"""Browser tests wait for what they need, never for a fixed time (issue 22 item 6).

A fixed pause (``page.wait_for_timeout(300)``, ``time.sleep(0.1)``, a script's
``setTimeout(r, 500)``) is a guess at how long the page or the table takes: too short on a
loaded machine (the test fails though nothing is wrong), too long everywhere else. The waits
a browser test needs are the primitives of tests/support/browser.py, each waiting for a
condition; only two of them pause, for the step between two looks at their condition. This
scan (the source parsed with `ast`, nothing imported) fails on any other fixed wait in
tests/browser/ or in that helper module, naming the file, line and what to use instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HELPERS = ROOT / "tests" / "support" / "browser.py"
#: The primitives allowed to pause: the step between two looks at a condition.
PRIMITIVES = frozenset({"wait_until", "pump_until"})
#: Calls that pause for a given time: Playwright's, the standard library's (``time.sleep``,
#: ``asyncio.sleep``, or either imported by name).
PAUSES = {"wait_for_timeout", "sleep"}
#: A script's own pause: ``setTimeout(f, <a delay>)``; ``setTimeout(f)`` (the next task, no
#: delay) is how `settled` lets the page finish what a click started.
SCRIPT_PAUSE = re.compile(r"\bsetTimeout\s*\([^()]*(?:\([^()]*\)[^()]*)*,\s*[^\s)]")
INSTEAD = (
    "wait for the condition the pause stands for with tests/support/browser.py's primitives "
    "(wait_until, pump_until, caught_up, settled, drawn) or a Playwright wait on the page"
)


def fixed_waits(source: str, name: str, primitives: frozenset[str] = frozenset()) -> list[str]:
    """Each fixed wait of ``source`` as "name:line: what", except inside the functions ``primitives``."""
    found: list[str] = []

    def visit(node: ast.AST, inside: str | None) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and inside is None:
            inside = node.name
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in PAUSES and inside not in primitives:
                found.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for match in SCRIPT_PAUSE.finditer(node.value):
                found.append(f"{name}:{node.lineno}: a script's pause {match.group(0)!r}")
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(ast.parse(source), None)
    return found


def test_no_fixed_wait_in_the_browser_tests_outside_the_primitives() -> None:
    found = fixed_waits(HELPERS.read_text(encoding="utf-8"), "tests/support/browser.py", PRIMITIVES)
    for path in sorted((ROOT / "tests" / "browser").rglob("*.py")):
        found += fixed_waits(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], f"fixed waits: {found}; {INSTEAD}"


def test_the_primitives_are_there_and_pause_only_between_two_looks() -> None:
    """The allowed pauses are where this test says: a rename would otherwise exempt nothing silently."""
    tree = ast.parse(HELPERS.read_text(encoding="utf-8"))
    defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert defined >= PRIMITIVES
    assert fixed_waits(HELPERS.read_text(encoding="utf-8"), "browser.py") != [], "the primitives pause"


def test_the_scan_finds_each_kind_of_fixed_wait() -> None:
    source = """
import asyncio, time
from time import sleep

def test_x(page):
    page.wait_for_timeout(300)
    time.sleep(0.1)
    sleep(1)
    asyncio.sleep(2)
    page.evaluate("() => new Promise((r) => setTimeout(r, 500))")
    page.evaluate("() => new Promise((done) => setTimeout(done))")  # the next task: no delay
    page.wait_for_selector("#x", timeout=30000)  # a deadline for a condition, not a pause

def wait_until(page):
    page.wait_for_timeout(20)
"""
    found = fixed_waits(source, "t.py", frozenset({"wait_until"}))
    assert [f.split(":")[1] for f in found] == ["6", "7", "8", "9", "10"], found
    assert len(fixed_waits(source, "t.py")) == 6, "outside the helper module nothing is exempt"
