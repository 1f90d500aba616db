import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_names_the_services_with_health_checks() -> None:
    services = _compose()["services"]
    assert {"postgres", "redis", "web", "worker", "background", "proxy", "static"} <= set(services)
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
    # Daphne, with the body cap applied before a body is read (config/serve.py).
    assert services["web"]["command"][:3] == ["python", "-m", "config.serve"]
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
    # The proxy reaches every replica of web by its name's addresses, not one container.
    assert "dynamic a web 8000" in _caddyfile()


def _caddyfile() -> str:
    """The Caddyfile, comments left out."""
    text = (ROOT / "Caddyfile").read_text()
    return "\n".join(line.split("#", 1)[0].rstrip() for line in text.splitlines())


def test_only_the_proxy_is_published_and_web_trusts_its_forwarded_address() -> None:
    services = _compose()["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    assert {"80:80", "443:443"} <= set(services["proxy"]["ports"])
    web = services["web"]["command"]
    assert "--proxy-headers" in web
    assert web[web.index("-p") + 1] == "8000" and services["web"]["expose"] == ["8000"]
    # Daphne takes the first X-Forwarded-For address: the proxy must set it from the
    # connection and never keep a client's own (Caddy keeps one only from trusted_proxies).
    assert "trusted_proxies" not in _caddyfile()
    assert services["proxy"]["image"].startswith("caddy:2")
    # TLS ends at the proxy, which says which scheme the client used.
    assert services["web"]["environment"]["SECURE_PROXY_SSL_HEADER"] == "1"


def test_the_proxy_caps_bodies_at_the_server_s_own_limit() -> None:
    from django.conf import settings

    from config.bodylimit import UPLOAD_OVERHEAD_BYTES, UPLOAD_PATH

    caddyfile = _caddyfile()
    proxy_env = _compose()["services"]["proxy"]["environment"]
    caps = {}
    for matcher, name in (("other", "MAX_REQUEST_BODY_BYTES"), ("upload", "UPLOAD_MAX_BODY_BYTES")):
        cap = re.search(
            rf"request_body @{matcher}\s*\{{\s*max_size \{{\${name}:(\d+)\}}", caddyfile
        )
        assert cap is not None, caddyfile
        default = re.fullmatch(rf"\$\{{{name}:-(\d+)\}}", proxy_env[name])
        assert default is not None
        assert int(cap.group(1)) == int(default.group(1))
        caps[matcher] = int(cap.group(1))
    assert caps["other"] == settings.MAX_REQUEST_BODY_BYTES
    assert caps["upload"] == settings.ATTACHMENT_MAX_BYTES + UPLOAD_OVERHEAD_BYTES
    # Uploads are the addresses the server itself lets pass its usual cap, and only they.
    [upload] = re.findall(r"@upload path_regexp (\S+)", caddyfile)
    assert re.findall(r"@other not path_regexp (\S+)", caddyfile) == [upload]
    for path in ("/api/channels/12/attachments", "/api/channels/12/attachments/"):
        assert re.search(upload, path) and UPLOAD_PATH.fullmatch(path)
    for path in ("/api/channels/12/instructions", "/api/channels/x/attachments", "/accounts/"):
        assert not re.search(upload, path) and not UPLOAD_PATH.fullmatch(path)
    # The caps come before anything is handled, static files and the proxying alike.
    assert caddyfile.index("request_body") < caddyfile.index("handle")


def test_the_proxy_serves_the_static_files_collectstatic_writes() -> None:
    from django.conf import settings

    services = _compose()["services"]
    static = services["static"]
    assert static["command"][:3] == ["python", "manage.py", "collectstatic"]
    [collected] = static["volumes"]
    volume, _, path = collected.partition(":")
    # The image's WORKDIR is the project: STATIC_ROOT is /app/staticfiles there.
    assert path == "/app/" + str(settings.STATIC_ROOT.relative_to(settings.BASE_DIR))
    served = [v for v in services["proxy"]["volumes"] if v.startswith(f"{volume}:")]
    assert served == [f"{volume}:/srv/static:ro"]
    assert re.search(
        r"handle_path /static/\*\s*\{\s*root \* /srv/static\s*file_server", _caddyfile()
    )
    assert (
        services["proxy"]["depends_on"]["static"]["condition"] == "service_completed_successfully"
    )
    assert services["web"]["environment"]["SERVE_STATIC"] == "0"


def test_every_variable_of_env_example_is_in_the_readme() -> None:
    example = (ROOT / ".env.example").read_text()
    readme = (ROOT / "README.md").read_text()
    names = [
        line.split("=", 1)[0].lstrip("# ").strip() for line in example.splitlines() if "=" in line
    ]
    assert len(names) >= 10
    for name in names:
        assert f"`{name}`" in readme, name


def _dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (keyword, arguments), continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in lines
        if line and not line.startswith("#")
    ]


def test_the_image_installs_the_dependencies_before_it_copies_the_tree() -> None:
    steps = _dockerfile()
    copies = [(i, args) for i, (keyword, args) in enumerate(steps) if keyword == "COPY"]
    installs = [i for i, (keyword, args) in enumerate(steps) if "pip install" in args]
    assert len(installs) == 1
    install = installs[0]
    # Only pyproject.toml before the install, so a change of the code does not rebuild it.
    assert [args for i, args in copies if i < install] == ["pyproject.toml ./"]
    assert [args for i, args in copies if i > install] == [". ."]
    # The project is never installed: one copy of the code, the tree's, run from WORKDIR.
    run = steps[install][1]
    assert "pip install ." not in run and "pip install -e" not in run
    env = next(args for keyword, args in steps if keyword == "ENV")
    workdir = next(args for keyword, args in steps if keyword == "WORKDIR")
    assert f"PYTHONPATH={workdir}" in env.split()


def test_the_image_installs_exactly_the_project_s_dependencies(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys
    import tomllib

    run = next(args for keyword, args in _dockerfile() if "pip install" in args)
    # The step's own command, run where the image runs it: beside pyproject.toml alone.
    command = run.split("&&")[0].replace("/tmp/requirements.txt", "requirements.txt")
    assert command.startswith("python -c "), command  # reads the list, installs nothing
    command = command.replace("python -c", f"{sys.executable} -c", 1)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    subprocess.run(command, shell=True, cwd=tmp_path, check=True, timeout=30)

    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    listed = (tmp_path / "requirements.txt").read_text().split("\n")
    assert [line for line in listed if line] == wanted
    assert any(line.startswith("Django") for line in listed)
    assert not any(line.startswith("pytest") for line in listed)


def test_no_environment_file_goes_into_the_image() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".env" in ignored and ".secret_key" in ignored
