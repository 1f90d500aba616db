"""The layout's contract (docs/design.md §1), checked on the source: one-way arrows — edges
(views, API, admin, consumers, commands, tasks) → services and selectors → models — no
import cycle, `llm/` and `language/` are leaves, `push/` (frames and how they are sent) lies
below every domain app, no domain app imports `realtime/` (the WebSocket entry point), and
edges write only through services.

Every import counts, including those inside functions: an import cycle hidden in a
function is still a cycle."""

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APPS = ("office", "sessions", "missions", "summaries", "memory", "context", "realtime")
# The WebSocket entry point: only the ASGI root (config.asgi) imports it.
ENTRY = "realtime"
DOMAIN_APPS = tuple(app for app in APPS if app != ENTRY)
LEAVES = ("llm", "language")
# The push side, below every domain app: it uses leaves and infrastructure only.
PUSH = "push"
PACKAGES = ("config", *APPS, PUSH, *LEAVES)
EDGE_MODULES = {"views", "api", "admin", "consumers", "routing", "urls", "forms", "tasks"}
# The served process's start (the server, its warm-up) is an edge like the ASGI module.
EDGE_CONFIG = {
    "config.asgi",
    "config.urls",
    "config.api",
    "config.health",
    "config.serve",
    "config.warmup",
}
# Infrastructure every layer may use; it imports no domain app itself.
INFRASTRUCTURE = {"config.celery", "config.settings", "config.env", "config.prepared"}
WRITES = {
    "create",
    "bulk_create",
    "get_or_create",
    "update_or_create",
    "update",
    "bulk_update",
    "delete",
    "save",
}


@dataclass
class Module:
    name: str
    path: Path  # relative to the tree's root
    tree: ast.Module
    imports: dict[str, int] = field(default_factory=dict)  # module → line
    nested: dict[str, int] = field(default_factory=dict)  # imported inside a function

    @property
    def app(self) -> str:
        return self.name.split(".")[0]

    @property
    def kind(self) -> str:
        if self.name in EDGE_CONFIG:
            return "edge"
        if self.name in INFRASTRUCTURE or self.app == "config":
            return "infrastructure"
        if self.app in LEAVES:
            return "leaf"
        if self.app == PUSH:
            return "push"
        parts = self.name.split(".")
        if "management" in parts or parts[-1] in EDGE_MODULES:
            return "edge"
        if parts[-1] == "models":
            return "models"
        if parts[-1] == "apps":
            return "apps"
        return "core"


def _module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(name: str, known: set[str]) -> str | None:
    """The project module an import names (a package's __init__ counts as the package)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def load_modules(root: Path = ROOT) -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            name = _module_name(path, root)
            rel = path.relative_to(root)
            modules[name] = Module(name, rel, ast.parse(path.read_text(), str(path)))
    known = set(modules)
    for module in modules.values():
        parents = {
            child: node for node in ast.walk(module.tree) for child in ast.iter_child_nodes(node)
        }
        for node in ast.walk(module.tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # `from pkg import mod` may name a submodule.
                targets = [f"{node.module}.{alias.name}" for alias in node.names]
            if not targets or _type_checking_only(node, parents):
                continue
            assert isinstance(node, ast.Import | ast.ImportFrom)
            in_function = any(
                isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef)
                for p in _ancestors(node, parents)
            )
            for target in targets:
                resolved = _resolve(target, known)
                if resolved is None or resolved == module.name:
                    continue
                module.imports.setdefault(resolved, node.lineno)
                if in_function:
                    module.nested.setdefault(resolved, node.lineno)
    return modules


def _ancestors(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> Iterator[ast.AST]:
    while node in parents:
        node = parents[node]
        yield node


def find_cycle(modules: dict[str, Module]) -> list[str]:
    """One import cycle as a list of modules, or [] when the graph is acyclic."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(name: str) -> list[str]:
        state[name] = 1
        stack.append(name)
        for target in sorted(modules[name].imports):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[name] = 2
        return []

    for name in sorted(modules):
        if name not in state:
            found = visit(name)
            if found:
                return found
    return []


def layer_violations(modules: dict[str, Module]) -> list[str]:
    problems = []
    for module in modules.values():
        for target, line in sorted(module.imports.items()):
            other = modules[target]
            where = f"{module.path}:{line} imports {target}"
            if module.kind == "leaf" and other.app != module.app and other.kind != "infrastructure":
                problems.append(f"{where}: {module.app}/ is a leaf and imports no domain app")
            if module.kind == "infrastructure" and other.kind not in ("infrastructure", "leaf"):
                problems.append(f"{where}: infrastructure imports no domain app")
            if (
                module.kind == "push"
                and other.app != PUSH
                and other.kind
                not in (
                    "infrastructure",
                    "leaf",
                )
            ):
                problems.append(f"{where}: push/ lies below every app and imports none")
            if module.app in DOMAIN_APPS and other.app == ENTRY:
                problems.append(
                    f"{where}: no domain app imports the entry point (send through push/)"
                )
            if module.kind == "models" and other.kind not in ("models", "infrastructure"):
                problems.append(f"{where}: models import only models")
            if module.kind != "edge" and other.kind == "edge":
                problems.append(f"{where}: only edges import edges")
        for target, line in sorted(module.nested.items()):
            if module.kind != "apps":
                problems.append(f"{module.path}:{line} imports {target} inside a function")
    return problems


def _root_name(node: ast.AST) -> str:
    while True:
        if isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            return node.id if isinstance(node, ast.Name) else ""


def edge_writes(modules: dict[str, Module]) -> list[str]:
    """ORM writes in edges: on a model class of the project, or `.update()`/`.delete()` on
    an admin action's queryset. Edges call services for every write."""
    problems = []
    for module in modules.values():
        if module.kind != "edge":
            continue
        model_names = set()
        for node in ast.walk(module.tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.endswith(".models")
                and node.module.split(".")[0] in APPS
            ):
                model_names |= {a.asname or a.name for a in node.names}
        for node in ast.walk(module.tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in WRITES:
                continue
            root = _root_name(node.func.value)
            if root in model_names or (
                root == "queryset" and node.func.attr in ("update", "delete")
            ):
                problems.append(
                    f"{module.path}:{node.lineno} writes {root} directly "
                    f"({node.func.attr}); call a service"
                )
    return problems


@pytest.fixture(scope="module")
def modules() -> dict[str, Module]:
    return load_modules()


def test_there_is_no_import_cycle(modules: dict[str, Module]) -> None:
    assert find_cycle(modules) == []


def test_arrows_run_one_way(modules: dict[str, Module]) -> None:
    assert layer_violations(modules) == []


def test_edges_write_only_through_services(modules: dict[str, Module]) -> None:
    assert edge_writes(modules) == []


# Django's SQL compiler and the iterables that turn rows into objects are its internals,
# free to change between releases: queries are built and run through querysets (a
# hand-written statement may take a queryset's SQL, `Query.sql_with_params`). The one
# exception is config.prepared's compiled path, off unless settings.COMPILED_QUERIES
# (its own tests check it against the ORM).
DJANGO_INTERNALS = ("django.db.models.sql",)
MAY_USE_DJANGO_INTERNALS = {"config.prepared"}
DJANGO_INTERNAL_NAMES = {
    "django.db.models.query": {
        "ModelIterable",
        "ValuesIterable",
        "ValuesListIterable",
        "FlatValuesListIterable",
        "NamedValuesListIterable",
        "RelatedPopulator",
        "get_related_populators",
    }
}


def django_internals(modules: dict[str, Module]) -> list[str]:
    problems = []
    for module in modules.values():
        if module.name in MAY_USE_DJANGO_INTERNALS:
            continue
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith(DJANGO_INTERNALS)]
            elif node.module:
                if node.module.startswith(DJANGO_INTERNALS):
                    names = [node.module]
                internal = DJANGO_INTERNAL_NAMES.get(node.module, set())
                names += [f"{node.module}.{a.name}" for a in node.names if a.name in internal]
            problems += [f"{module.path}:{node.lineno} imports {name}" for name in names]
    return problems


def test_queries_are_not_compiled_through_django_internals(modules: dict[str, Module]) -> None:
    assert django_internals(modules) == []


# The checks themselves must catch what they are for: each is run on a small tree that
# breaks one rule.


def _tree(tmp_path: Path, files: dict[str, str]) -> dict[str, Module]:
    for package in PACKAGES:
        (tmp_path / package).mkdir(exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return load_modules(tmp_path)


def test_a_cycle_hidden_in_a_function_is_found(tmp_path: Path) -> None:
    tree = _tree(
        tmp_path,
        {
            "missions/services.py": "from sessions.services import x\n",
            "sessions/services.py": "def x():\n    from missions.services import y\n",
        },
    )
    assert find_cycle(tree)[0] in ("missions.services", "sessions.services")
    assert any("inside a function" in p for p in layer_violations(tree))


def test_llm_importing_a_domain_app_is_refused(tmp_path: Path) -> None:
    tree = _tree(
        tmp_path,
        {
            "llm/offline.py": "from summaries.extractive import fold\n",
            "summaries/extractive.py": "",
        },
    )
    assert any("leaf" in p for p in layer_violations(tree))


def test_an_edge_writing_a_model_is_refused(tmp_path: Path) -> None:
    tree = _tree(
        tmp_path,
        {
            "memory/models.py": "",
            "memory/admin.py": (
                "from memory.models import MemoryItem\n"
                "def pin(queryset):\n    queryset.update(pinned=True)\n"
                "def add():\n    MemoryItem.objects.create(text='x')\n"
            ),
        },
    )
    assert len(edge_writes(tree)) == 2


def test_importing_djangos_sql_compiler_is_refused(tmp_path: Path) -> None:
    tree = _tree(
        tmp_path,
        {
            "config/compiled.py": (
                "from django.db.models.sql.compiler import SQLCompiler\n"
                "from django.db.models.query import QuerySet, get_related_populators\n"
            ),
        },
    )
    assert django_internals(tree) == [
        "config/compiled.py:1 imports django.db.models.sql.compiler",
        "config/compiled.py:2 imports django.db.models.query.get_related_populators",
    ]


def test_a_service_importing_an_edge_is_refused(tmp_path: Path) -> None:
    tree = _tree(
        tmp_path,
        {"missions/intake.py": "from sessions.tasks import check\n", "sessions/tasks.py": ""},
    )
    assert any("only edges import edges" in p for p in layer_violations(tree))


def test_a_domain_app_importing_the_entry_point_is_refused(tmp_path: Path) -> None:
    tree = _tree(
        tmp_path,
        {"missions/run.py": "from realtime.consumers import X\n", "realtime/consumers.py": ""},
    )
    assert any("entry point" in p for p in layer_violations(tree))


def test_push_importing_a_domain_app_is_refused(tmp_path: Path) -> None:
    tree = _tree(
        tmp_path,
        {
            "push/frames.py": "from language.storable import X\nfrom missions.models import Y\n",
            "missions/models.py": "",
            "language/storable.py": "",
        },
    )
    # Only the domain app: a leaf is below push/ too.
    assert [p for p in layer_violations(tree) if "push/" in p] == [
        "push/frames.py:2 imports missions.models: push/ lies below every app and imports none"
    ]


def test_the_apps_push_without_the_entry_point(modules: dict[str, Module]) -> None:
    """The apps that send frames reach them through push/."""
    senders = {m.app for m in modules.values() if any(t.startswith("push.") for t in m.imports)}
    assert {"missions", "sessions", "office"} <= senders
    assert not [
        f"{m.name} imports {t}"
        for m in modules.values()
        if m.app in DOMAIN_APPS
        for t in m.imports
        if t.split(".")[0] == ENTRY
    ]
