"""The package's shape, read from the source (issues 17 and 22): import arrows point one way.

Every module under ``companion/`` is parsed with `ast` (nothing is imported, so a
lazy import inside a function counts like one at the top: a circle closed at run
time is still a circle to a reader). The checks:

- no import cycle between the package's modules;
- the rules core (`companion.engine`) imports only itself and the standard library;
- the table layer (the live table, its store, its hardware) never imports the web layer;
- the web layer reaches the running table only through its port (`TableRuntime`), never
  ``runtime.table`` or ``runtime.store``;
- no module imports another's private name (``from x import _name``) or reaches one
  through an imported module (``x._name``);
- the editions package is entered through what it exports: other modules import
  `companion.editions` and its ``__all__`` names (Flask, which the rest of the package never
  imports, serves its routes from `companion.web.editions`);
- every module lives in a layer folder (`LAYERS`), and no import runs back up the layers: a
  folder imports only itself and the folders of lower tiers, never one of its own tier.
"""

from __future__ import annotations

import ast
import itertools
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "companion"

#: Layers by module name prefix. The web layer serves the page; the table layer must
#: work with no page at all (a replay, the console, the doctor), so it never imports it.
WEB = ("companion.web",)
TABLE = (
    "companion.table",
    "companion.table.session",
    "companion.table.stream",
    "companion.store.log",
    "companion.hardware",
    "companion.table.tags",
    "companion.table.enrol",
)


@dataclass
class Module:
    name: str
    path: Path
    imports: set[str] = field(default_factory=set)  # every module named by an import, dotted
    private: list[str] = field(default_factory=list)  # "line: what" for each private name reached
    defines: set[str] = field(default_factory=set)  # private names it defines (functions, attributes)
    reaches: list[tuple[int, str]] = field(default_factory=list)  # (line, _name) of ``obj._name``
    names: list[tuple[int, str, str]] = field(default_factory=list)  # (line, module, name) of each ``from``


def private_uses(module: Module, known: dict[str, Module]) -> list[str]:
    """``obj._name`` where ``_name`` belongs to another of the package's modules (a method or
    attribute only it defines): ``runtime.table._emit``. A module's own privates, used by its
    own functions, and other libraries' (a named tuple's ``_replace``) are not counted."""
    elsewhere = set().union(*(m.defines for n, m in known.items() if n != module.name))
    return [
        f"{line}: ._{name[1:]}"
        for line, name in module.reaches
        if name in elsewhere and name not in module.defines
    ]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Module]:
    found = {module_name(p): Module(module_name(p), p) for p in sorted(PACKAGE.rglob("*.py"))}
    for module in found.values():
        read(module, found)
    return found


def offences(finds: Callable[[Module], Iterable[str]], known: dict[str, Module] | None = None) -> list[str]:
    """``module:place`` of each thing ``finds`` finds in the package's modules (or ``known``)."""
    return [f"{name}:{where}" for name, module in (known or modules()).items() for where in finds(module)]


def target(module: Module, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    package = module.name.split(".")
    if module.path.name != "__init__.py":
        package.pop()
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def read(module: Module, known: dict[str, Module]) -> None:
    tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
    aliases: dict[str, str] = {}  # local name -> companion module, for x._name
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                module.imports.add(alias.name)
                if alias.name in known:
                    aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = target(module, node)
            for alias in node.names:
                module.names.append((node.lineno, source, alias.name))
                whole = f"{source}.{alias.name}"
                if whole in known:  # ``from companion.hardware import reader``: the submodule
                    module.imports.add(whole)
                    aliases[alias.asname or alias.name] = whole
                else:
                    module.imports.add(source)
                    if private(alias.name) and source.startswith("companion") and source != module.name:
                        module.private.append(f"{node.lineno}: from {source} import {alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and private(node.name):
            module.defines.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and private(node.id):
            module.defines.add(node.id)  # a class attribute or dataclass field (``_stop: Event``)
        elif isinstance(node, ast.Attribute) and private(node.attr):
            if isinstance(node.value, ast.Name) and node.value.id in aliases:
                module.private.append(f"{node.lineno}: {aliases[node.value.id]}.{node.attr}")
            elif isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}:
                if isinstance(node.ctx, ast.Store):
                    module.defines.add(node.attr)  # self._x = ...
            else:
                module.reaches.append((node.lineno, node.attr))


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def inside(name: str, prefixes: tuple[str, ...] | str) -> bool:
    prefixes = (prefixes,) if isinstance(prefixes, str) else prefixes
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def own_imports(module: Module, known: dict[str, Module]) -> Iterator[str]:
    """The package's modules this one imports (a package's ``__init__`` counts as a module)."""
    for name in module.imports:
        if name in known and name != module.name:
            yield name


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle, as its set of modules (each strongly connected group, sorted): modules
    that each reach the others through imports. ``graphlib`` names only the first one."""

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(graph.get(start, ()))
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(graph.get(name, ()))
        return seen

    reached = {name: reach(name) for name in graph}
    groups = {
        tuple(sorted(other for other in reached[name] if name in reached[other]))
        for name in graph
        if name in reached[name]
    }
    return sorted(list(group) for group in groups)


def test_the_package_has_no_import_cycle() -> None:
    known = modules()
    graph = {name: set(own_imports(module, known)) for name, module in known.items()}
    found = cycles(graph)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(group) for group in found)


#: The layers, lowest first: a folder of ``companion/`` may import itself and the folders of the
#: tiers below its own, never one above nor another of its tier. util and engine need only the
#: standard library; the table works with no hardware, coach, history or page (a replay, the
#: console); the web layer sees a running table through its port; run/ wires them all.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("util", "engine"),
    ("editions",),
    ("records",),
    ("store",),
    ("table",),
    ("hardware", "coach", "history", "venue"),
    ("web",),
    ("run",),
)
#: The package's own root: its version (which anything may import) and ``python -m companion``.
BOTTOM, TOP = "companion", "companion.__main__"


def layer_of(name: str) -> str | None:
    """The layer folder a module lives in (``companion.store.log`` -> ``store``), or None for a
    module directly under ``companion/`` (the two root modules, or one no folder holds yet)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in TIER else None


TIER = {folder: level for level, tier in enumerate(LAYERS) for folder in tier}


def arrows_up(graph: dict[str, set[str]]) -> list[str]:
    """Every import from a module to a module of a higher tier, or of another folder of its own
    tier (``a -> b (store -> table)``); imports of the package root (its version) are allowed."""
    found = []
    for name, imported in sorted(graph.items()):
        if name == TOP:
            continue
        here = layer_of(name)
        for other in sorted(imported):
            there = layer_of(other)
            if other == BOTTOM or there == here:
                continue
            if here is None or there is None or TIER[there] >= TIER[here]:
                found.append(f"{name} -> {other} ({here or 'root'} -> {there or 'root'})")
    return found


def test_every_module_lives_in_a_layer_folder() -> None:
    """A module added directly under ``companion/`` says nothing about its layer: put it in the
    folder of what it holds (or add a folder to `LAYERS`, in its place in the order)."""
    loose = [name for name in modules() if layer_of(name) is None and name not in {BOTTOM, TOP}]
    assert not loose, f"modules outside the layer folders: {loose}"
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert folders <= set(TIER), f"folders missing from LAYERS: {sorted(folders - set(TIER))}"


def test_no_import_runs_back_up_the_layers() -> None:
    known = modules()
    graph = {name: set(own_imports(module, known)) for name, module in known.items()}
    found = arrows_up(graph)
    assert not found, f"{len(found)} imports run back up {' < '.join('/'.join(t) for t in LAYERS)}: {found}"


def test_an_import_back_up_is_found() -> None:
    graph = {
        "companion.table.live": {"companion.store.log", "companion.engine", "companion"},
        "companion.store.log": {"companion.table.session", "companion.util.files"},
        "companion.coach.service": {"companion.hardware.ring", "companion.coach.bots"},
        "companion.web.app": {"companion.processes"},
        "companion.__main__": {"companion.run.cli"},
    }
    assert arrows_up(graph) == [
        "companion.coach.service -> companion.hardware.ring (coach -> hardware)",
        "companion.store.log -> companion.table.session (store -> table)",
        "companion.web.app -> companion.processes (web -> root)",
    ]


def test_the_helpers_and_the_rules_core_import_only_the_standard_library() -> None:
    stdlib = sys.stdlib_module_names | {"__future__"}
    wrong = [
        f"{name} imports {imported}"
        for name, module in modules().items()
        if layer_of(name) in {"util", "engine"}
        for imported in sorted(module.imports)
        if layer_of(imported) != layer_of(name) and imported.split(".")[0] not in stdlib
    ]
    assert not wrong, wrong


def test_the_rules_core_imports_only_itself_and_the_standard_library() -> None:
    stdlib = sys.stdlib_module_names | {"__future__"}
    wrong = [
        f"{name} imports {imported}"
        for name, module in modules().items()
        if inside(name, "companion.engine")
        for imported in sorted(module.imports)
        if not inside(imported, "companion.engine") and imported.split(".")[0] not in stdlib
    ]
    assert not wrong, wrong


def test_the_table_layer_never_imports_the_web_layer() -> None:
    wrong = [
        f"{name} imports {imported}"
        for name, module in modules().items()
        if inside(name, TABLE)
        for imported in sorted(module.imports)
        if inside(imported, WEB) or imported.split(".")[0] in {"flask", "waitress"}
    ]
    assert not wrong, wrong


#: The composition root: it builds the runtime and hands it to the web layer, so the web layer
#: (and the port it is given) never imports any of it.
ROOT = ("companion.run.startup", "companion.run.console", "companion.run.serving", "companion.run.runtime")


def test_the_web_layer_never_imports_the_composition_root() -> None:
    wrong = [
        f"{name} imports {imported}"
        for name, module in modules().items()
        if inside(name, (*WEB, "companion.table.access"))
        for imported in sorted(module.imports)
        if inside(imported, (*ROOT, "companion.run.cli"))
    ]
    assert not wrong, wrong


#: The app factory: it registers every feature's blueprint.
APP = "companion.web.app"
#: A route's decorator: ``@<blueprint>.get("/api/...")`` and its siblings.
ROUTE_METHODS = {"get", "post", "put", "patch", "delete", "route"}


def route_owners(source: str) -> tuple[list[str], list[tuple[int, str]]]:
    """A module's blueprints (the names module-level ``Blueprint(...)`` calls are kept in) and
    its routes: (line, the name the route is declared on) for each ``@x.get("/...")``."""
    tree = ast.parse(source)
    blueprints = [
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "Blueprint"
        for target in node.targets
        if isinstance(target, ast.Name)
    ]
    routes = [
        (decorator.lineno, decorator.func.value.id)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        for decorator in node.decorator_list
        if isinstance(decorator, ast.Call)
        and isinstance(decorator.func, ast.Attribute)
        and decorator.func.attr in ROUTE_METHODS
        and isinstance(decorator.func.value, ast.Name)
        and decorator.args
        and isinstance(decorator.args[0], ast.Constant)
        and str(decorator.args[0].value).startswith("/")
    ]
    return blueprints, routes


def blueprint_problems(source: str) -> list[str]:
    """Where a module holding routes is not one feature's blueprint: two blueprints in one
    module, or a route declared on something else (the app itself)."""
    blueprints, routes = route_owners(source)
    found = [f"{len(blueprints)} blueprints: {', '.join(blueprints)}"] if len(blueprints) > 1 else []
    found += [
        f"{line}: a route on {owner}, not the module's blueprint"
        for line, owner in routes
        if owner not in blueprints
    ]
    return found


def test_each_web_module_holding_routes_is_one_features_blueprint() -> None:
    """The page's routes by feature (issue 22): each module one blueprint, its routes on it,
    none on the app; the factory registers them and no route module imports it."""
    found = {n: m for n, m in modules().items() if inside(n, WEB)}
    wrong = [
        f"{name}: {where}"
        for name, module in found.items()
        for where in blueprint_problems(module.path.read_text(encoding="utf-8"))
    ]
    assert not wrong, wrong
    holding = sorted(n for n, m in found.items() if route_owners(m.path.read_text(encoding="utf-8"))[1])
    assert len(holding) >= 9 and APP not in holding, holding
    assert set(holding) <= found[APP].imports, "every feature's blueprint is registered by the app"
    wrong = [name for name in holding if APP in found[name].imports]
    assert not wrong, f"route modules importing the app factory: {wrong}"
    assert all("companion.web.route_support" in found[name].imports for name in holding)


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('live = Blueprint("live", __name__)\n@live.get("/api/state")\ndef state(): ...\n', []),
        ('a = Blueprint("a", __name__)\nb = Blueprint("b", __name__)\n', ["2 blueprints: a, b"]),
        (
            'def create_app():\n    app = Flask(__name__)\n    @app.get("/")\n    def index(): ...\n',
            ["3: a route on app, not the module's blueprint"],
        ),
        ('def f(d):\n    @functools.lru_cache()\n    def g(): ...\n    return d.get("x")\n', []),
    ],
)
def test_a_route_outside_its_features_blueprint_is_found(source: str, found: list[str]) -> None:
    assert blueprint_problems(source) == found


def test_no_module_reaches_another_modules_private_names() -> None:
    known = modules()
    wrong = offences(lambda module: module.private, known)
    wrong += offences(lambda module: private_uses(module, known), known)
    assert not wrong, wrong


def test_a_private_method_of_another_module_is_found(tmp_path: Path) -> None:
    (tmp_path / "table.py").write_text("class Table:\n    def _emit(self):\n        self._seen = 1\n")
    (tmp_path / "app.py").write_text(
        "def tap(runtime, row):\n    runtime.table._emit()\n    row._replace(a=1)\n    return runtime._own\n"
        "class Runtime:\n    def __init__(self):\n        self._own = 1\n"
    )
    known = {
        name: Module(name, tmp_path / f"{name.split('.')[1]}.py")
        for name in ("companion.table", "companion.app")
    }
    for module in known.values():
        read(module, known)
    assert private_uses(known["companion.app"], known) == ["2: ._emit"]
    assert private_uses(known["companion.table"], known) == []


# The checks themselves, on made-up graphs and sources: a check that cannot fail proves nothing.


def test_a_cycle_is_found_and_a_chain_is_not() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d", "a"}}) == [
        ["a", "b", "c"],
        ["d", "e"],
    ]


@pytest.mark.parametrize(
    ("source", "imports", "reached"),
    [
        (
            "from companion.other import _hidden\n",
            {"companion.other"},
            ["1: from companion.other import _hidden"],
        ),
        ("import companion.other\n\ndef f():\n    return companion.other._x\n", {"companion.other"}, []),
        ("from companion import other\nother._x\n", {"companion.other"}, ["2: companion.other._x"]),
        ("def f():\n    from .other import thing\n", {"companion.other"}, []),
        ("from companion import __version__\n", {"companion"}, []),
    ],
)
def test_imports_and_private_names_are_read_from_the_source(
    tmp_path: Path, source: str, imports: set[str], reached: list[str]
) -> None:
    path = PACKAGE / "probe.py"  # named inside the package for module_name; read from tmp_path
    written = tmp_path / "probe.py"
    written.write_text(source)
    module = Module("companion.probe", path)
    module.path = written
    known = {"companion": Module("companion", PACKAGE / "__init__.py")}
    known["companion.other"] = Module("companion.other", PACKAGE / "other.py")
    known["companion.probe"] = module
    read(module, known)
    assert module.imports == imports
    assert module.private == reached


# One year formatter and one plural helper (issue 17, item 4): companion.engine.words.

WORDS = "companion.engine.words"


def hand_made_words(module: Module) -> list[str]:
    """Where a module writes a BCE year or an English plural itself: an f-string with
    " BCE" after a value, or ``"s" if n != 1`` (a noun's plural; a verb's "wins" is not one)."""
    found = []
    for node in ast.walk(ast.parse(module.path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr):
            parts = node.values
            for before, after in itertools.pairwise(parts):
                if (
                    isinstance(before, ast.FormattedValue)
                    and isinstance(after, ast.Constant)
                    and str(after.value).startswith(" BCE")
                ):
                    found.append(f"{node.lineno}: a BCE year")
        if (
            isinstance(node, ast.IfExp)
            and isinstance(node.body, ast.Constant)
            and node.body.value == "s"
            and isinstance(node.test, ast.Compare)
            and isinstance(node.test.ops[0], ast.NotEq)
        ):
            found.append(f"{node.lineno}: a plural")
    return found


def test_years_and_plurals_are_written_by_one_helper() -> None:
    wrong = offences(lambda module: hand_made_words(module) if module.name != WORDS else [])
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('y = f"{-year} BCE" if year < 0 else str(year)\n', ["1: a BCE year"]),
        ("s = f\"{n} crystal{'s' if n != 1 else ''}\"\n", ["1: a plural"]),
        ("s = f\"win{'s' if len(won) == 1 else ''}\"\n", []),
        ("s = f\"{year_text(y)} BCE-like, {plural(n, 'hour')}\"\n", ["1: a BCE year"]),
        ('s = "490 BCE"\n', []),
    ],
)
def test_hand_made_years_and_plurals_are_found(tmp_path: Path, source: str, found: list[str]) -> None:
    path = tmp_path / "probe.py"
    path.write_text(source)
    assert hand_made_words(Module("companion.probe", path)) == found


# Editions in one package (issue 17, item 3): entered through what it exports.

EDITIONS = "companion.editions"
#: The package's modules that are entry points of their own, and who may import each: none since
#: the commands and the routes moved up to run/ and web/ (issue 22).
EDITION_ENTRIES: dict[str, tuple[str, ...]] = {}


def exported(package: Path) -> set[str]:
    """The names a package's ``__init__`` lists in ``__all__``."""
    for node in ast.parse((package / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return set()


def edition_reaches(module: Module, exports: set[str]) -> list[str]:
    """Where a module outside the editions package reaches past what it exports: one of its
    inner modules, an entry point it is not meant to import, or a name not in ``__all__``."""
    if inside(module.name, EDITIONS):
        return []
    found = [
        f"imports {name}"
        for name in sorted(module.imports)
        if inside(name, EDITIONS)
        and name != EDITIONS
        and not inside(module.name, EDITION_ENTRIES.get(name, ()))
    ]
    found += [
        f"{line}: from {EDITIONS} import {name}"
        for line, source, name in module.names
        if source == EDITIONS and name not in exports and f"{EDITIONS}.{name}" not in EDITION_ENTRIES
    ]
    return found


def test_other_modules_use_only_what_the_editions_package_exports() -> None:
    exports = exported(PACKAGE / "editions")
    assert {"EditionLibrary", "shipped_edition", "put_card", "cards_to_csv"} <= exports
    wrong = [
        f"{name}: {where}" for name, module in modules().items() for where in edition_reaches(module, exports)
    ]
    assert not wrong, wrong


def test_only_the_edition_routes_in_the_editions_package_import_the_web_layer() -> None:
    wrong = [
        f"{name} imports {imported}"
        for name, module in modules().items()
        if inside(name, EDITIONS) and name != "companion.web.editions"
        for imported in sorted(module.imports)
        if inside(imported, WEB) or imported.split(".")[0] in {"flask", "waitress", "werkzeug"}
    ]
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("name", "source", "found"),
    [
        ("companion.records.trekking", "from companion.editions import shipped_edition\n", []),
        (
            "companion.records.trekking",
            "from companion.editions import _shipped\n",
            ["1: from companion.editions import _shipped"],
        ),
        (
            "companion.records.trekking",
            "from companion.editions.library import EditionLibrary\n",
            ["imports companion.editions.library"],
        ),
        (
            "companion.records.trekking",
            "import companion.editions.edit\n",
            ["imports companion.editions.edit"],
        ),
        ("companion.run.cli", "def f():\n    from companion.run.edition_commands import add_commands\n", []),
        ("companion.web.app", "from companion.web.editions import library_api\n", []),
        (
            "companion.table.enrol",
            "from companion.editions.edit import apply\n",
            ["imports companion.editions.edit"],
        ),
        ("companion.editions.edit", "from companion.editions.library import validate\n", []),
    ],
)
def test_reaching_into_the_editions_package_is_found(
    tmp_path: Path, name: str, source: str, found: list[str]
) -> None:
    written = tmp_path / "probe.py"
    written.write_text(source)
    module = Module(name, written)
    known = {
        n: Module(n, PACKAGE / "editions" / f"{n.rsplit('.', 1)[1]}.py")
        for n in ("companion.editions.library", "companion.editions.edit")
    }
    known[EDITIONS] = Module(EDITIONS, PACKAGE / "editions" / "__init__.py")
    known[name] = module
    read(module, known)
    assert edition_reaches(module, {"shipped_edition"}) == found


#: The web layer's modules that serve the running table (they all reach it through
#: `companion.web.route_support.table_runtime()`, typed `companion.web.ports.TableRuntime`):
#: every one of them, the feature's routes, the live streams, the app factory.
WEB_PAGES = WEB
#: What the web layer must never take from the runtime: the live table and its store.
INSIDES = {"table", "store"}


def runtime_insides(path: Path) -> list[str]:
    """``runtime.table``, ``table_runtime().store`` ...: the web layer reaching past the port
    into the `Table` or the `Store` (``runtime`` being any name the runtime is kept in)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr not in INSIDES:
            continue
        value = node.value
        is_call = (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "table_runtime"
        )
        if is_call or (isinstance(value, ast.Name) and "runtime" in value.id):
            found.append(f"{node.lineno}: .{node.attr}")
    return found


def test_the_web_layer_sees_the_table_only_through_its_port() -> None:
    wrong = offences(lambda module: runtime_insides(module.path) if inside(module.name, WEB_PAGES) else [])
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("def f():\n    return table_runtime().table.state_json()\n", ["2: .table"]),
        ("def f(runtime):\n    store = runtime.store\n", ["2: .store"]),
        ("def f(rt):\n    return table_runtime().state(), rt.table\n", []),
    ],
)
def test_a_web_module_reaching_the_table_is_found(tmp_path: Path, source: str, found: list[str]) -> None:
    path = tmp_path / "probe.py"
    path.write_text(source)
    assert runtime_insides(path) == found


# Errors that carry only a code and its params (issue 17, item 4): their English is the
# catalogue's sentence (`companion.util.wording.CodedError`), never a sentence at the raise site.

CODED = {
    "ConfigError",
    "GameSetupError",
    "LibraryError",
    "EnrolRefused",
    "HardwareFault",
    "StoreError",
    "DiskFull",
    "GameDamaged",
    "RecordError",
    "BadJson",
    "FieldError",
    "Rejection",  # the rules core's refusal: a code and its facts, worded above the engine
}
#: Made with a kind or facts beside their reason, but never with English: an unreadable event
#: (``bad_event``'s ``why``) and a record line that is not JSON.
REASONED = {"Malformed", "NotJson"}
#: Two words in a string: a sentence (a code, a param's value such as "GPIO17" or ", " is not).
SENTENCE = re.compile(r"[A-Za-z]{2,}\s+[A-Za-z]")


def hand_written_errors(path: Path) -> list[str]:
    """Where one of the `CODED` errors is made with English: a string of words (or an f-string
    holding some) among its arguments, or its code passed as ``code=`` beside a message."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name not in CODED | REASONED:
            continue
        arguments = [*node.args, *(k.value for k in node.keywords)]
        english = any(
            isinstance(inner, ast.Constant) and isinstance(inner.value, str) and SENTENCE.search(inner.value)
            for argument in arguments
            for inner in ast.walk(argument)
        )
        positional = name in CODED and (any(k.arg == "code" for k in node.keywords) or len(node.args) > 1)
        if english or positional:
            found.append(f"{node.lineno}: {name}")
    return found


def test_coded_errors_are_made_with_a_code_and_params_only() -> None:
    wrong = offences(lambda module: hand_written_errors(module.path))
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('raise GameSetupError("duplicate_names")\n', []),
        ('raise LibraryError("edition_too_large", max=MAX, detail=str(exc))\n', []),
        ('raise HardwareFault("button_unreadable", pin=f"GPIO{pin}", names=", ".join(n))\n', []),
        ('raise GameSetupError("two players share a name", code="duplicate_names")\n', ["1: GameSetupError"]),
        ('raise EnrolRefused(message, code="enrol_taken")\n', ["1: EnrolRefused"]),
        ('raise health.HardwareFault(f"the {name} pin is gone")\n', ["1: HardwareFault"]),
        ('x = LibraryError("shipped_read_only", hint="make a copy")\n', ["1: LibraryError"]),
        ('raise HardwareFault("ring_failed", REINSTALL)\n', ["1: HardwareFault"]),
        ('raise StoreError("store_no_game", game=game_id, path=str(self.path))\n', []),
        ('raise StoreError(f"there is no game {game_id} in {self.path}")\n', ["1: StoreError"]),
        ('raise DiskFull(full_message(folder, "nothing was saved and nothing changed"))\n', ["1: DiskFull"]),
        ('raise GameDamaged(f"game {n} is damaged", damage)\n', ["1: GameDamaged"]),
        ('raise RecordError("record_format", version=repr(version), supported=RECORD_FORMAT)\n', []),
        ('raise RecordError(f"the edition is not valid: {exc}") from None\n', ["1: RecordError"]),
        ('raise BadJson("json_too_deep", max=MAX_DEPTH)\n', []),
        ('raise BadJson("The request body is not valid JSON.", code="json_invalid")\n', ["1: BadJson"]),
        ('raise FieldError("field_day", column="day", value=text)\n', []),
        ('raise FieldError("day", f"{text!r} is not a Day", code="field_day")\n', ["1: FieldError"]),
        ("return Rejection(UNKNOWN_CARD, card=card_id, edition=self.edition.name)\n", []),
        ('return Rejection(NOTHING_TO_UNDO, "There is nothing to undo.")\n', ["1: Rejection"]),
        ('return Rejection(BAD_EVENT, reason, {"why": "malformed"})\n', ["1: Rejection"]),
        ('return Malformed("take", "take_crystals", {"value": repr(crystals)})\n', []),
        ("return Malformed(None, 'the event has no \"type\"')\n", ["1: Malformed"]),
        ('raise NotJson(f"the line nests deeper than {MAX_DEPTH} levels")\n', ["1: NotJson"]),
    ],
)
def test_a_hand_written_error_is_found(tmp_path: Path, source: str, found: list[str]) -> None:
    path = tmp_path / "probe.py"
    path.write_text(source)
    assert hand_written_errors(path) == found


#: Functions whose answer a person reads, worded above them: they return facts, not English
#: (module, function). A tag's resolution is the ``unknown_tag`` outcome's params.
WORDLESS = {("table/tags.py", "resolve")}


def english_in(path: Path, function: str) -> list[str]:
    """The lines where ``function`` in ``path`` holds a string of words (its docstring aside)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.FunctionDef) or node.name != function:
            continue
        body = node.body[1:] if ast.get_docstring(node) is not None else node.body
        for statement in body:
            for inner in ast.walk(statement):
                if (
                    isinstance(inner, ast.Constant)
                    and isinstance(inner.value, str)
                    and SENTENCE.search(inner.value)
                ):
                    found.add(f"{path.name}:{inner.lineno}")
    return sorted(found)


def test_a_tags_resolution_is_facts_not_english() -> None:
    wrong = [where for module, function in WORDLESS for where in english_in(PACKAGE / module, function)]
    assert not wrong, wrong


def test_english_in_a_resolution_is_found(tmp_path: Path) -> None:
    path = tmp_path / "tags.py"
    path.write_text(
        'def resolve(seen):\n    """What a tag is."""\n    if seen:\n        return seen, {}\n'
        '    return None, f"Unknown tag {seen!r}. Enrol it on the page"\n'
    )
    assert english_in(path, "resolve") == ["tags.py:5"]
    path.write_text(
        'def resolve(seen):\n    """What a tag is."""\n    return None, {"tag": seen, "why": "unknown"}\n'
    )
    assert english_in(path, "resolve") == []


# The console's and the journal's own lines (issue 17, item 4): a sentence printed, said or
# logged is the catalogue's (``say(code, **params)`` from `companion.util.wording`), never English
# written at the call site.

#: The calls that put a line in front of someone: ``print``, a ``say`` callback (the console,
#: the journal under systemd, a dialogue), the table's ``log``, a dialogue's ``ask`` and the
#: doctor's ``confirm`` question, the doctor's report line (``Check``: its detail and fix), and
#: the CLI's one-line failure (``fail``, on stderr before exit status 2).
SPEAKERS = {"say", "log", "print", "ask", "confirm", "Check", "fail"}
#: What such a call may carry that has two words but is not a sentence, by module and literal
#: text, each with why. What the console prints that is not a sentence mostly holds no two words
#: (the ring line is "ring " and ANSI codes, a JSON dump and a bare param no literal at all, an
#: indent "  "), so it passes without an entry.
NOT_SENTENCES: dict[tuple[str, str], str] = {
    (
        "companion.run.doctor",
        "data directory",
    ): "a check's name, the label of its line, as wiring.md names it",
    ("companion.run.doctor", "ring LEDs"): "a check's name, the label of its line, as wiring.md names it",
    ("companion.run.doctor", "ring colours"): "a check's name, the label of its line, as wiring.md names it",
    (
        "companion.run.doctor",
        "ring order",
    ): "a check's name, the label of its line (the colour-order question)",
    ("companion.run.doctor", "core clock"): "a check's name, the label of its line (vcgencmd's word)",
}


def spoken_english(
    path: Path, name: str = "", allowed: dict[tuple[str, str], str] | None = None
) -> list[str]:
    """Where a `SPEAKERS` call is given English: a string of two words or more (or an f-string
    holding one) among its arguments, unless ``allowed`` (`NOT_SENTENCES`) lets that text through."""
    allowed = NOT_SENTENCES if allowed is None else allowed
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        )
        if called not in SPEAKERS:
            continue
        texts = [
            inner.value
            for argument in [*node.args, *(k.value for k in node.keywords)]
            for inner in ast.walk(argument)
            if isinstance(inner, ast.Constant)
            and isinstance(inner.value, str)
            and SENTENCE.search(inner.value)
        ]
        if any((name, text) not in allowed for text in texts):
            found.append(f"{node.lineno}: {called}")
    return found


def test_the_console_and_the_journal_speak_through_the_catalogues() -> None:
    wrong = offences(lambda module: spoken_english(module.path, module.name))
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('say("pin_shown")\n', []),
        ('runtime.say(say("game_from_page", game=3, players=", ".join(names)))\n', []),
        ('self.say(f"  {n}. {label}")\n', []),
        ('print(f"{path}: {problem}")\n', []),
        ('self.say("Confirm held: the ring shows the table PIN.")\n', ["1: say"]),
        ('say(f"Removed {len(orphans)} temporary file(s)")\n', ["1: say"]),
        ('self.log(("" if ok else "Not accepted: ") + message)\n', ["1: log"]),
        ('print(\n    f"{n} stickers to write, "\n    "Stop the table first."\n)\n', ["1: print"]),
        ('answer = ask("Number (empty to search again): ")\n', ["1: ask"]),
        ('log.exception("coach failed")\n', []),
    ],
)
def test_english_spoken_at_a_call_site_is_found(tmp_path: Path, source: str, found: list[str]) -> None:
    path = tmp_path / "probe.py"
    path.write_text(source)
    assert spoken_english(path, "companion.probe") == found


def test_an_allowed_text_is_let_through_and_only_in_its_module(tmp_path: Path) -> None:
    path = tmp_path / "probe.py"
    path.write_text('print("OK OK")\nprint("OK OK", "Not this one")\n')
    allowed = {("companion.probe", "OK OK"): "a made-up status word"}
    assert spoken_english(path, "companion.probe", allowed) == ["2: print"]
    assert spoken_english(path, "companion.other", allowed) == ["1: print", "2: print"]


def test_no_test_imports_the_benchmarks() -> None:
    """`benchmarks/` only measures: what the tests share with it lives in `tests/support/`, and a
    test of a benchmark runs it as a user does (``python -m benchmarks.NAME``), never imports it."""
    tests = Path(__file__).resolve().parents[1]
    found = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "benchmarks" or n.startswith("benchmarks.") for n in names):
                found.append(f"{path.relative_to(tests)}:{node.lineno}")
    assert not found, found
