"""The README's configuration table is the settings' own: every environment variable that
config/settings.py reads is a row, every row is read, and each row's default is the one the
settings fall back to.

The settings are loaded in a fresh interpreter with the config.env readers wrapped, so the
defaults are the values the code actually passes, not a copy of them: once with nothing
set (the embedded default) and once as production (what only production reads)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RECORDER = r"""
import json
from pathlib import Path

import config.env as env

BASE_DIR = Path(env.__file__).resolve().parent.parent
reads = {}


def render(value):
    if value is None or value == "" or value == []:
        return "—"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ",".join(value)
    if isinstance(value, Path):
        return str(value.relative_to(BASE_DIR) if value.is_relative_to(BASE_DIR) else value)
    return str(value)


def recording(reader, default_of):
    def read(name, *args, **kwargs):
        # The first reader of a name says its default (env_url and env_choice read
        # through env_str).
        reads.setdefault(name, render(default_of(*args, **kwargs)))
        return reader(name, *args, **kwargs)

    return read


env.env_str = recording(env.env_str, lambda default="": default)
env.env_bool = recording(env.env_bool, lambda default: default)
env.env_int = recording(env.env_int, lambda default, minimum=0: default)
env.env_float = recording(env.env_float, lambda default, minimum=0.0: default)
env.env_list = recording(env.env_list, lambda default: default)
env.env_choice = recording(env.env_choice, lambda default, choices: default)
env.env_url = recording(env.env_url, lambda schemes: None)
env.env_path = recording(env.env_path, lambda default: default)
env.secret_key_file = lambda path: "k" * 50

import config.settings  # noqa: E402,F401

print(json.dumps(reads))
"""

PRODUCTION = {
    "OFFICE_ENV": "production",
    "SECRET_KEY": "VbTe6vLJAsfUBplOB_9NRJm2djDx1rQ7kb63IgmtKSwrdk6y87SMfvcNDy0MFxRIToU",
    "ALLOWED_HOSTS": "office.example.com",
    "DATABASE_URL": "postgres://office@127.0.0.1:5432/office",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
}


def _read_by_settings(**env: str) -> dict[str, str]:
    """Each variable config/settings.py reads, with the default it passes."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    clean = {k: v for k, v in os.environ.items() if k in keep}
    done = subprocess.run(
        [sys.executable, "-c", RECORDER],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def settings_defaults() -> dict[str, str]:
    defaults = _read_by_settings(**PRODUCTION)
    defaults.update(_read_by_settings())  # the embedded default's, where both read one
    return defaults


def readme_table(text: str) -> dict[str, str]:
    """`NAME` → its default cell, from the README's Configuration section."""
    section = re.split(r"^## Configuration$", text, flags=re.MULTILINE)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        match = re.match(r"^\| `([A-Z0-9_]+)` \| ([^|]*) \|", line)
        if match:
            assert match.group(1) not in rows, f"{match.group(1)} is in the table twice"
            rows[match.group(1)] = match.group(2).strip()
    return rows


def documented_default(cell: str) -> str:
    """What a default cell states: its text before any remark in parentheses, without
    backticks ("thread (celery with `REDIS_URL`)" states "thread")."""
    return cell.split(" (", 1)[0].replace("`", "").strip()


def test_every_setting_is_in_the_readme_table_with_its_default() -> None:
    defaults = settings_defaults()
    table = readme_table((ROOT / "README.md").read_text())

    assert len(defaults) > 60  # the recorder saw the settings' reads
    missing = sorted(set(defaults) - set(table))
    unknown = sorted(set(table) - set(defaults))
    wrong = {
        name: f"README says {documented_default(table[name])!r}, settings {default!r}"
        for name, default in defaults.items()
        if name in table and documented_default(table[name]) != default
    }
    assert not missing, f"settings not in the README's table: {missing}"
    assert not unknown, f"rows of the README's table no setting reads: {unknown}"
    assert not wrong, wrong


def test_the_recorder_sees_defaults_that_depend_on_other_settings() -> None:
    embedded, production = _read_by_settings(), _read_by_settings(**PRODUCTION)

    # Production alone reads the HSTS settings and the Redis channel layer's.
    assert "SECURE_HSTS_SECONDS" not in embedded
    assert production["SECURE_HSTS_SECONDS"] == "31536000"
    assert production["CHANNEL_CAPACITY"] == "1000"
    # A default computed from another setting is the one passed.
    assert embedded["TASK_RUNNER"] == "thread" and production["TASK_RUNNER"] == "celery"
    assert embedded["SECRET_KEY_FILE"] == ".secret_key"
    assert embedded["OPENAI_TIMEOUT"] == "60" and embedded["DEBUG"] == "0"


def test_a_wrong_or_missing_row_is_found() -> None:
    good = "## Configuration\n\n| `FOLD_BATCH` | 8 | missions per fold |\n\n## Next\n"
    assert readme_table(good) == {"FOLD_BATCH": "8"}
    assert documented_default("`thread` (celery with `REDIS_URL`)") == "thread"
    assert documented_default("—") == "—"
    assert readme_table(good.replace("FOLD_BATCH", "FOLD_BATCHES")) == {"FOLD_BATCHES": "8"}
