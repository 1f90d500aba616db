"""A migration runs the code it was written with: it imports no module of the project's
apps (their code changes; a migration that leans on it would do something else on a
database migrated later). Allowed: Django, the standard library, an app's `models`
module where Django's writer names a callable (a field default), and, inside a function,
`language` (stored search terms must be written by the analyser that reads them)."""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("office", "sessions", "missions", "summaries", "memory", "context", "realtime")
# Modules of the project that are not apps' code a migration could freeze.
NESTED_ALLOWED = ("language",)


def _imports(tree: ast.Module) -> list[tuple[str, int, bool]]:
    """(module, line, inside a function) for every import of a migration."""
    nested_lines = {
        node.lineno
        for function in ast.walk(tree)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(function)
        if isinstance(node, (ast.Import, ast.ImportFrom))
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno, node.lineno in nested_lines) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.module, node.lineno, node.lineno in nested_lines))
    return found


def _refused(module: str, nested: bool) -> bool:
    top = module.split(".")[0]
    if top == "django" or top in sys.stdlib_module_names:
        return False
    if nested and top in NESTED_ALLOWED:
        return False
    return not (top in APPS and module == f"{top}.models" and not nested)


def migration_imports_refused(root: Path) -> list[str]:
    refused = []
    for path in sorted(root.glob("*/migrations/[0-9]*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for module, line, nested in _imports(tree):
            if _refused(module, nested):
                refused.append(f"{path.relative_to(root)}:{line} imports {module}")
    return refused


def test_no_migration_imports_the_apps_code() -> None:
    assert migration_imports_refused(ROOT) == []


def test_a_migration_importing_an_apps_helper_is_refused(tmp_path: Path) -> None:
    migrations = tmp_path / "missions" / "migrations"
    migrations.mkdir(parents=True)
    (migrations / "0002_backfill.py").write_text(
        "import office.models\nfrom django.db import migrations\n"
        "from missions.labels import labels_of\n\n"
        "def forwards(apps, schema_editor):\n    from language.reindex import reterm\n"
        "    from missions.selectors import anything\n"
    )
    assert migration_imports_refused(tmp_path) == [
        "missions/migrations/0002_backfill.py:3 imports missions.labels",
        "missions/migrations/0002_backfill.py:7 imports missions.selectors",
    ]
