"""Start-up with good and bad environments, in a fresh interpreter each time."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUR_VARIABLES = {
    "OFFICE_ENV",
    "DEBUG",
    "SECRET_KEY",
    "SECRET_KEY_FILE",
    "ALLOWED_HOSTS",
    "DATABASE_URL",
    "REDIS_URL",
    "TASK_RUNNER",
    "LLM_PROVIDER",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_TIMEOUT",
    "OPENAI_MAX_ATTEMPTS",
    "DETAIL_MISSIONS",
    "LONG_SESSION_MISSIONS",
    "DATABASE_POOL",
    "DATABASE_PREPARED",
    "FOLD_BATCH",
    "PENDING_BUDGET_CHARS",
}
PRODUCTION = {
    "OFFICE_ENV": "production",
    # A key as secrets.token_urlsafe(50) makes them (production judges its strength).
    "SECRET_KEY": "-m6NOzviyLhxYJh_Yf-r3-Pvkrggrm8snIex-ZXd4fqGFDax091wfyfRyJh_pwXhTgE",
    "ALLOWED_HOSTS": "office.example.com",
    "DATABASE_URL": "postgres://office@127.0.0.1:5432/office",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
}


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in OUR_VARIABLES}
    clean.update(env)
    clean["DJANGO_SETTINGS_MODULE"] = "config.settings"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _settings(**env: str) -> subprocess.CompletedProcess[str]:
    return _run(
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'],"
        " s.TASK_RUNNER, s.LLM_PROVIDER)",
        **env,
    )


def test_nothing_set_gives_the_embedded_default() -> None:
    result = _settings()
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "config.sqlite",
        "config.channel_layer.EmbeddedChannelLayer",
        "thread",
        "offline",
    ]


def test_folds_wait_for_a_batch_of_eight_by_default() -> None:
    result = _run(
        "import django; django.setup(); from django.conf import settings as s; "
        "from summaries.due import fold_due; "
        "print(s.FOLD_BATCH, s.DETAIL_MISSIONS, fold_due(waiting=7), fold_due(waiting=8))"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["8", "8", "False", "True"]


def test_production_variables_select_postgres_redis_celery_and_openai() -> None:
    result = _settings(**PRODUCTION, OPENAI_API_KEY="sk-test")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "django.db.backends.postgresql",
        "config.channel_layer.RedisPubSubLayer",
        "celery",
        "openai",
    ]


@pytest.mark.slow(20)
def test_the_database_urls_options_are_kept_beside_the_pool() -> None:
    """sslmode and the like in DATABASE_URL's query reach the connection, pool or not."""
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        "print(json.dumps(s.DATABASES['default']['OPTIONS'], sort_keys=True))"
    )
    url = "postgres://office@127.0.0.1:5432/office?sslmode=require&application_name=web"
    for pool in ("1", "0"):
        result = _run(code, **{**PRODUCTION, "DATABASE_URL": url, "DATABASE_POOL": pool})
        assert result.returncode == 0, result.stderr
        options = json.loads(result.stdout)
        assert options["sslmode"] == "require"
        assert options["application_name"] == "web"
        assert ("pool" in options) == (pool == "1")


def test_a_sqlite_url_is_accepted(tmp_path: Path) -> None:
    result = _run(
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DATABASES['default']['NAME'])",
        DATABASE_URL=f"sqlite:///{tmp_path}/office.sqlite3",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"{tmp_path}/office.sqlite3"


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("DEBUG", "maybe"),
        ("DATABASE_URL", "mysql://x@localhost/db"),
        ("REDIS_URL", "localhost:6379"),
        ("OPENAI_TIMEOUT", "soon"),
        ("DETAIL_MISSIONS", "-3"),
        ("LONG_SESSION_MISSIONS", "twenty"),
        ("TASK_RUNNER", "cron"),
        ("OPENAI_BASE_URL", "ftp://models"),
    ],
)
def test_a_bad_value_stops_start_up_naming_the_variable(variable: str, value: str) -> None:
    result = _settings(**{variable: value})
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert variable in last_line


def test_production_refuses_to_start_without_a_secret_key() -> None:
    env = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    result = _settings(**env)
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr.strip().splitlines()[-1]


def test_production_refuses_to_start_with_debug_on() -> None:
    result = _settings(**PRODUCTION, DEBUG="1")
    assert result.returncode != 0
    assert "DEBUG" in result.stderr.strip().splitlines()[-1]


def test_check_deploy_reports_nothing_above_info() -> None:
    clean = {k: v for k, v in os.environ.items() if k not in OUR_VARIABLES}
    clean.update(PRODUCTION)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr and "ERROR" not in result.stderr


@pytest.mark.slow(20)
def test_an_embedded_install_makes_its_own_secret_key_once(tmp_path: Path) -> None:
    code = "import django; django.setup(); from django.conf import settings as s; "
    code += "print(s.SECRET_KEY)"
    ours, theirs = tmp_path / "ours" / ".secret_key", tmp_path / "theirs.key"
    ours.parent.mkdir()
    first = _run(code, SECRET_KEY_FILE=str(ours))
    assert first.returncode == 0, first.stderr
    again = _run(code, SECRET_KEY_FILE=str(ours))
    other = _run(code, SECRET_KEY_FILE=str(theirs))
    key = first.stdout.strip()
    assert len(key) >= 50 and again.stdout.strip() == key  # kept across restarts
    assert other.stdout.strip() != key  # every install its own
    assert ours.read_text().strip() == key
    assert ours.stat().st_mode & 0o777 == 0o600


def test_a_damaged_key_file_stops_start_up_with_a_clear_line(tmp_path: Path) -> None:
    damaged = tmp_path / ".secret_key"
    damaged.write_text("short\n")
    result = _settings(SECRET_KEY_FILE=str(damaged))
    assert result.returncode != 0
    assert "holds no usable secret key" in result.stderr


@pytest.mark.slow(20)
def test_debug_is_off_unless_asked_for_in_the_embedded_default() -> None:
    code = "import django; django.setup(); from django.conf import settings as s; print(s.DEBUG)"
    assert _run(code).stdout.strip() == "False"
    assert _run(code, DEBUG="1").stdout.strip() == "True"
    assert _run(code, DEBUG="0").stdout.strip() == "False"


def _database_options(**env: str) -> dict[str, object]:
    result = _run(
        "import django, json; django.setup(); from django.conf import settings as s; "
        "o = s.DATABASES['default'].get('OPTIONS', {}); "
        "print(json.dumps({k: o.get(k) for k in ('server_side_binding', 'prepare_threshold')}))",
        **env,
    )
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


@pytest.mark.slow(20)
def test_postgres_binds_on_the_server_and_prepares_repeated_statements_unless_told_not_to() -> None:
    assert _database_options(**PRODUCTION) == {"server_side_binding": True, "prepare_threshold": 2}
    assert _database_options(**PRODUCTION, DATABASE_POOL="0")["server_side_binding"] is True
    # Behind a pooler that cannot keep prepared statements.
    assert _database_options(**PRODUCTION, DATABASE_PREPARED="0") == {
        "server_side_binding": None,
        "prepare_threshold": None,
    }


@pytest.mark.parametrize(
    "key",
    [
        "abcde" * 12,
        "a" * 60,
        "my django secret key for the office, please change me later",
        "ourcompanysecretkeyforproductiondontshareitwithanyone2026!",
        "우리 회사 비밀 키는 절대로 다른 사람에게 알려주면 안 됩니다 꼭 기억하세요 사무실 2026년",
        "우리회사비밀키는절대로다른사람에게알려주면안됩니다꼭기억하세요사무실2026년정말로요진짜로꼭이요제발",
    ],
)
def test_production_refuses_a_key_of_words_repeats_or_patterns(key: str) -> None:
    assert len(key) >= 50  # long enough for Django's own check (security.W009)
    result = _settings(**{**PRODUCTION, "SECRET_KEY": key})
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert "SECRET_KEY" in last_line and "token_urlsafe" in last_line


def test_keys_of_the_usual_generators_are_strong_enough() -> None:
    import secrets

    from django.core.management.utils import get_random_secret_key

    from config.env import secret_key_problem

    for _ in range(20):
        for key in (secrets.token_urlsafe(50), get_random_secret_key(), secrets.token_hex(32)):
            assert secret_key_problem(key) is None, key
    result = _settings(**{**PRODUCTION, "SECRET_KEY": secrets.token_urlsafe(50)})
    assert result.returncode == 0, result.stderr
