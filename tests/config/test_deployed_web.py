"""docker-compose.yml's web service, run as compose runs it (its command, its health check).

Issue 42, point 7: behind the proxy every client came from the proxy's address, so five
sign-ups anywhere blocked sign-up for everyone for an hour. Daphne takes the client's
address from the proxy's X-Forwarded-For (the Caddyfile makes the proxy set it from the
connection, never from the client). And the proxy waits for web's health check, which
must pass in production: with the real host names only, and HTTPS redirect on."""

import http.cookiejar
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any

import pytest
from django.db import connection

from tests.reliability.test_workers import Proc, _free_port, deployed_daphne

pytestmark = pytest.mark.django_db(transaction=True)


def _database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
        return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    return f"sqlite:///{db['NAME']}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the answer itself (302 on a sign-up) is what is looked at


def _sign_up(base: str, *, address: str) -> int:
    """One person signing up from `address`, through the proxy; the answer's status."""
    browser = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect()
    )
    browser.addheaders = [("X-Forwarded-For", address)]
    with browser.open(f"{base}/signup/", timeout=30) as page:
        html = page.read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert token is not None, html[:300]
    form = {
        "csrfmiddlewaretoken": token.group(1),
        "username": f"p{uuid.uuid4().hex[:10]}",
        "password1": "a long pass 4 tests",
        "password2": "a long pass 4 tests",
        "language": "ko",
    }
    try:
        with browser.open(f"{base}/signup/", urllib.parse.urlencode(form).encode(), 30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return refused.code


def test_sign_ups_are_counted_per_client_not_per_proxy() -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "TASK_"))}
    env.update(
        DATABASE_URL=_database_url(),
        # Counters in the process's own memory: this test's, no one else's.
        REDIS_URL="",
        ALLOWED_HOSTS="127.0.0.1",
        SIGNUP_RATE_LIMIT="5",
        SIGNUP_RATE_WINDOW="3600",
        PYTHONUNBUFFERED="1",
    )
    web = Proc(deployed_daphne(port), env, ready="Listening on TCP address")
    try:
        base = f"http://127.0.0.1:{port}"
        # Six people behind the proxy, each from their own address: none is refused.
        people = [f"198.51.100.{n}" for n in range(1, 7)]
        assert [_sign_up(base, address=a) for a in people] == [302] * 6
        # One address is still held to five (the sixth is its sixth).
        for _ in range(4):
            assert _sign_up(base, address="198.51.100.1") == 302
        assert _sign_up(base, address="198.51.100.1") == 429
    finally:
        web.stop()


def _healthcheck(port: int) -> list[str]:
    """web's health check in docker-compose.yml, pointed at `port`."""
    import yaml

    from tests.reliability.test_workers import ROOT

    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    test = services["web"]["healthcheck"]["test"]
    assert test[0] == "CMD"
    command = [part.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for part in test[1:]]
    assert command[0] == "python"
    return [sys.executable, *command[1:]]


@pytest.mark.redis
def test_web_s_health_check_passes_in_production_behind_its_host_name() -> None:
    import yaml
    from django.conf import settings

    from tests.reliability.test_workers import ROOT

    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    # What compose gives web that differs from the test process's own settings.
    web_env = {
        k: str(v) for k, v in services["web"]["environment"].items() if not str(v).startswith("$")
    }
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "TASK_"))}
    env.update(web_env)
    env.update(
        DATABASE_URL=_database_url(),
        REDIS_URL=settings.REDIS_URL,
        SECRET_KEY="VbTe6vLJAsfUBplOB_9NRJm2djDx1rQ7kb63IgmtKSwrdk6y87SMfvcNDy0MFxRIToU",
        # The deployment's own name only: the probe must say it.
        ALLOWED_HOSTS="office.example.com",
        SECURE_SSL_REDIRECT="1",
        PYTHONUNBUFFERED="1",
    )
    assert env["OFFICE_ENV"] == "production"
    # As compose runs it: failures during the start period (warming up) do not count.
    start_period = float(services["web"]["healthcheck"]["start_period"].rstrip("s"))
    web = Proc(deployed_daphne(port), env, ready="Listening on TCP address")
    try:
        deadline = time.monotonic() + start_period
        while True:
            probe = subprocess.run(
                _healthcheck(port), env=env, capture_output=True, text=True, timeout=30
            )
            if probe.returncode == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert probe.returncode == 0, probe.stderr[-2000:] + "\n".join(web.lines[-20:])
    finally:
        web.stop()
