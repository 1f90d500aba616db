"""Fixtures for the browser tests: the product's embedded default run as a real server
process (SQLite in a temporary file, in-memory channel layer, tasks on a thread, the
offline model) and Debian's Chromium driven through Playwright's sync API.

Nothing here touches pytest-django's test database: the server has its own SQLite file,
and the tests look at it only through the browser, the JSON API or `manage.py`.

Playwright is imported lazily, so this file loads even where it is not installed (the
test module then skips, or fails in CI)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Dialog, Error, Page, ViewportSize

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT: ViewportSize = {"width": 1280, "height": 860}
PHONE: ViewportSize = {"width": 390, "height": 844}
WAIT_MS = 20_000
SERVER_START_SECONDS = 30.0
COMMAND_SECONDS = 180.0

DEMO_USER = "demo"
DEMO_PASSWORD = "demo"
DEMO_OFFICE = "Demo office"
# Whose 1:1 channel gets the pre-loaded missions: one instruction short of the
# long-session notice (LONG_SESSION_MISSIONS, pinned to 20 below).
LONG_SESSION_EMPLOYEE = "Iris"
LONG_SESSION_MISSIONS = 20

# Nineteen finished missions of a product designer preparing a website launch. The
# wording carries decisions, constraints, numbers and names, so the offline extractive
# fold has something to keep in the rolling summary.
REPLY_DETAIL = " Details: spacing, type scale, colour tokens and states are documented." * 25
PRELOADED_MISSIONS: list[tuple[str, str]] = [
    (
        "Plan the visual design of the Website launch for Zephyr Analytics.",
        "Plan: moodboard this week, wireframes next, high-fidelity mock-ups by May 20.",
    ),
    (
        "Collect three moodboards for the new homepage.",
        "Three moodboards are ready: Calm Ledger, Bright Grid and Night Shift.",
    ),
    (
        "Which moodboard should we use?",
        "We decided to go with Calm Ledger: it fits the finance audience best.",
    ),
    (
        "Pick the typefaces for the site.",
        "We will use Inter for the interface and Source Serif for long articles.",
    ),
    (
        "What colour palette goes with Calm Ledger?",
        "Primary navy #1B2A41, accent teal #2A9D8F, background off-white #F7F5F0.",
    ),
    (
        "Check the palette for accessibility.",
        "All text pairs pass WCAG AA; body text must stay at least 16 px.",
    ),
    (
        "Sketch the homepage wireframe.",
        "Hero with one headline, three feature cards, a pricing teaser and a demo form.",
    ),
    (
        "How many pages does the launch need?",
        "Six pages: home, product, pricing, customers, about and contact.",
    ),
    (
        "Draft the pricing page layout.",
        "Three plans side by side; the Team plan at $49 a month is highlighted.",
    ),
    (
        "Review the hero illustration from the agency.",
        "Approved the second version; the agency delivers the final files on Friday.",
    ),
    (
        "Design the signup form.",
        "Only four fields: name, work email, company and team size. No phone number.",
    ),
    (
        "What should the mobile navigation look like?",
        "A bottom bar with four items; we confirmed the hamburger menu is dropped.",
    ),
    (
        "Prepare the icon set.",
        "Twenty-four line icons at 24 px, exported as one SVG sprite.",
    ),
    (
        "Plan the customer logo wall.",
        "Eight logos in greyscale; Northwind and Globex have approved their use.",
    ),
    (
        "Write the design review agenda.",
        "Agenda: homepage, pricing, signup, mobile; review on Tuesday at 10:00.",
    ),
    (
        "Summarise the feedback from the design review.",
        "Mara wants a bolder pricing headline; Theo asked for fewer custom animations.",
    ),
    (
        "Update the pricing headline.",
        "New headline: Simple pricing for growing finance teams.",
    ),
    (
        "List the handoff files for Theo.",
        "Figma file, SVG sprite, colour tokens as JSON and the responsive grid spec.",
    ),
    (
        "Check the launch checklist for design.",
        "Open items: favicon, social preview image and the 404 page illustration.",
    ),
]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# Variables of the product's configuration that could make the server under test
# something other than the embedded default: every name in .env.example (so settings
# added later are covered too) and these. Everything else is inherited.
_DROPPED_VARIABLES = {
    "DATABASE_URL",
    "DATABASE_POOL",
    "DATABASE_POOL_MAX",
    "REDIS_URL",
    "TASK_RUNNER",
    "LLM_PROVIDER",
    "OFFICE_ENV",
    "DEBUG",
    "SECRET_KEY",
    "SIGNUP_ENABLED",
    "LONG_SESSION_MISSIONS",
    "DETAIL_MISSIONS",
    "LANGUAGE_CODE",
    "SERVE_STATIC",
    "SECURE_SSL_REDIRECT",
    "SECURE_PROXY_SSL_HEADER",
    "TEST_DATABASE_NAME",
}


def _configuration_names() -> set[str]:
    example = REPO / ".env.example"
    if not example.is_file():
        return set()
    text = example.read_text(encoding="utf-8")
    return set(re.findall(r"^\s*#?\s*([A-Z][A-Z0-9_]*)=", text, flags=re.MULTILINE))


def server_environment(database: Path) -> dict[str, str]:
    dropped = _DROPPED_VARIABLES | _configuration_names()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in dropped and not key.startswith("OPENAI_")
    }
    env.update(
        {
            "DATABASE_URL": f"sqlite:///{database}",  # an absolute path: sqlite:////tmp/…
            "TASK_RUNNER": "thread",
            "LLM_PROVIDER": "offline",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SWEEP_INTERVAL": "5",
            "OFFICE_ENV": "embedded",
            "SIGNUP_ENABLED": "1",
            "LONG_SESSION_MISSIONS": str(LONG_SESSION_MISSIONS),
            "LANGUAGE_CODE": "en",
            "SERVE_STATIC": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


_EMBEDDED_ENVIRONMENT = server_environment


@dataclass
class Server:
    """The running product, and how to reach it."""

    url: str
    env: dict[str, str]
    workdir: Path
    database: Path
    log: Path
    long_session_channel: int
    long_session_session: int

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_manage(self.env, *args)


def run_manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "manage.py", *args]
    try:
        done = subprocess.run(
            command,
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=COMMAND_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"{' '.join(args)} took more than {COMMAND_SECONDS:.0f} s") from exc
    if done.returncode != 0:
        raise RuntimeError(
            f"manage.py {' '.join(args)} failed ({done.returncode}):\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    return done


def _healthy(url: str) -> bool:
    # No proxy: the server is on loopback, whatever the environment says.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url + "/healthz", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


# The database every browser module's server starts from, made once per test process:
# migrated, the demo office seeded, Iris's session replayed (migrating and replaying took
# 15–25 s of each module's start when every module made its own).
_template: tuple[Path, dict[str, int]] | None = None


def _prepared_database(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    global _template
    if _template is not None:
        return _template
    workdir = tmp_path_factory.mktemp("browser-template")
    database = workdir / "office.sqlite3"
    # The embedded default's environment, whatever model a module's server talks to.
    env = _EMBEDDED_ENVIRONMENT(database)
    run_manage(env, "migrate", "--noinput", "-v", "0")
    run_manage(env, "seed_demo")
    missions = workdir / "iris.jsonl"
    # Replies of a realistic length: a session of short ones would fit the prompt whole,
    # and then no summary would be needed (the context panel shows one here).
    missions.write_text(
        "".join(
            json.dumps({"instruction": i, "reply": r + REPLY_DETAIL}) + "\n"
            for i, r in PRELOADED_MISSIONS
        ),
        encoding="utf-8",
    )
    replayed = run_manage(
        env,
        "replay",
        str(missions),
        "--office",
        DEMO_OFFICE,
        "--owner",
        DEMO_USER,
        "--channel-kind",
        "dm",
        "--employee",
        LONG_SESSION_EMPLOYEE,
        "--timeout",
        "120",
    )
    ids = json.loads(replayed.stdout.strip().splitlines()[-1])
    _template = database, {"channel": int(ids["channel"]), "session": int(ids["session"])}
    return _template


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    template, ids = _prepared_database(tmp_path_factory)
    workdir = tmp_path_factory.mktemp("browser-server")
    database = workdir / "office.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        made = Path(f"{template}{suffix}")
        if made.exists():
            shutil.copyfile(made, f"{database}{suffix}")
    env = server_environment(database)

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = workdir / "daphne.log"
    argv = ["-m", "config.serve", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, *argv],
            cwd=REPO,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while not _healthy(url):
            if process.poll() is not None:
                raise RuntimeError(
                    f"daphne exited with {process.returncode}:\n{log.read_text()[-3000:]}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"GET /healthz was not 200 within {SERVER_START_SECONDS:.0f} s:\n"
                    f"{log.read_text()[-3000:]}"
                )
            time.sleep(0.2)
        yield Server(
            url=url,
            env=env,
            workdir=workdir,
            database=database,
            log=log,
            long_session_channel=int(ids["channel"]),
            long_session_session=int(ids["session"]),
        )
    finally:
        _stop(process)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    manager = sync_playwright().start()
    try:
        launched = manager.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            launched.close()
    finally:
        manager.stop()


# Installed before any page script runs. It records, for the assertions, what the page's
# own code did: which frames its WebSocket received, whether a streaming bubble was ever
# added to the timeline, and what the working indicator said while it was shown. It
# changes nothing the page does.
WATCH_SCRIPT = """
(() => {
  const watch = { open: 0, frames: [], streamed: 0, working: [] };
  window.__watch = watch;
  const Native = window.WebSocket;
  class WatchedSocket extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("open", () => { watch.open += 1; });
      this.addEventListener("close", () => { watch.open = Math.max(0, watch.open - 1); });
      this.addEventListener("message", (event) => {
        let type = "?";
        try { type = JSON.parse(event.data).type; } catch (e) { /* not JSON */ }
        watch.frames.push(type);
      });
    }
  }
  window.WebSocket = WatchedSocket;
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType === 1 && node.matches("li.msg.streaming")) watch.streamed += 1;
      }
    }
    const working = document.getElementById("working");
    if (working && !working.hidden && working.textContent) {
      const text = working.textContent;
      if (watch.working[watch.working.length - 1] !== text) watch.working.push(text);
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
})();
"""


@dataclass
class Problems:
    """What went wrong in the page while a test ran."""

    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


@pytest.fixture
def problems() -> Problems:
    return Problems()


@pytest.fixture
def page(browser: Browser, server: Server, problems: Problems) -> Iterator[Page]:
    """A fresh, logged-out browser context for each test. An uncaught JavaScript error,
    a console error or a dialog in any page of the test fails it (at teardown)."""
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT_MS)
    context = browser.new_context(viewport=VIEWPORT, base_url=server.url)
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(WATCH_SCRIPT)
    opened = context.new_page()

    def on_page_error(error: Error) -> None:
        problems.page_errors.append(f"{opened.url}: {error}")

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            problems.console_errors.append(f"{opened.url}: {message.text}")

    def on_dialog(dialog: Dialog) -> None:
        problems.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    opened.on("pageerror", on_page_error)
    opened.on("console", on_console)
    opened.on("dialog", on_dialog)
    try:
        yield opened
        assert not problems.page_errors, f"JavaScript errors: {problems.page_errors}"
        assert not problems.dialogs, f"dialogs opened: {problems.dialogs}"
        assert not problems.console_errors, f"console errors: {problems.console_errors}"
    finally:
        context.close()


@pytest.fixture(params=["desktop", "phone"])
def device(
    request: pytest.FixtureRequest, browser: Browser, server: Server, problems: Problems
) -> Iterator[Page]:
    """A fresh browser context on a desktop or a phone (viewport, touch); an uncaught
    JavaScript error in any of its pages fails the test (at teardown)."""
    from playwright.sync_api import expect

    phone = request.param == "phone"
    context = browser.new_context(
        viewport=PHONE if phone else VIEWPORT,
        base_url=server.url,
        is_mobile=phone,
        has_touch=phone,
    )
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(WATCH_SCRIPT)
    expect.set_options(timeout=WAIT_MS)
    opened = context.new_page()
    opened.on("pageerror", lambda error: problems.page_errors.append(str(error)))
    try:
        yield opened
        assert not problems.page_errors, problems.page_errors
    finally:
        context.close()
