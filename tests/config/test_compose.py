from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_names_the_services_with_health_checks() -> None:
    services = _compose()["services"]
    assert {"postgres", "redis", "web", "worker", "background"} <= set(services)
    for name in ("postgres", "redis", "web", "worker", "background"):
        assert "healthcheck" in services[name], name


def test_each_lane_has_its_own_worker_and_replies_run_on_many_threads() -> None:
    services = _compose()["services"]
    replies, background = services["worker"]["command"], services["background"]["command"]
    assert replies[replies.index("-Q") + 1] == "replies"
    assert background[background.index("-Q") + 1] == "background"
    assert "--pool=threads" in replies
    concurrency = next(a for a in replies if a.startswith("--concurrency="))
    assert concurrency == "--concurrency=${REPLY_CONCURRENCY:-64}"


def test_web_runs_daphne_and_worker_runs_celery_against_the_same_services() -> None:
    services = _compose()["services"]
    assert services["web"]["command"][0] == "daphne"
    assert "config.asgi:application" in services["web"]["command"]
    for name in ("worker", "background"):
        assert services[name]["command"][:4] == ["celery", "-A", "config", "worker"]
    for name in ("web", "worker", "background"):
        env = services[name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:" in env["DATABASE_URL"]
        assert env["REDIS_URL"].startswith("redis://redis:")
        assert env["OFFICE_ENV"] == "production"
        assert "SECRET_KEY" in env


def test_a_single_beat_runs_the_sweeper() -> None:
    beat = _compose()["services"]["beat"]
    assert beat["command"][:4] == ["celery", "-A", "config", "beat"]
    assert beat["environment"]["REDIS_URL"].startswith("redis://redis:")


def test_web_and_worker_can_be_scaled() -> None:
    services = _compose()["services"]
    for name in ("web", "worker", "background"):
        assert "container_name" not in services[name]
    # A fixed host port would make a second web replica fail to bind.
    assert all(":" not in str(port) for port in services["web"].get("ports", []))


def test_every_variable_of_env_example_is_in_the_readme() -> None:
    example = (ROOT / ".env.example").read_text()
    readme = (ROOT / "README.md").read_text()
    names = [
        line.split("=", 1)[0].lstrip("# ").strip() for line in example.splitlines() if "=" in line
    ]
    assert len(names) >= 10
    for name in names:
        assert f"`{name}`" in readme, name
