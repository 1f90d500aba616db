"""Scenarios 8 and 15, with real processes: a Celery worker killed with SIGKILL in the
middle of a reply and of a fold, and the broker stopped while instructions arrive. The
workers run as docker-compose runs them: one per lane, on threads, with pooled database
connections."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.utils.timezone import now as timezone_now

from missions.intake import instruction_accept
from missions.models import Message, Mission, MissionStatus
from missions.sweeper import mission_sweep_stuck
from summaries.models import RollingSummary, SummaryRevision
from summaries.render import state_refs
from summaries.schemas import SummaryState
from summaries.services import summary_sweep_lagging
from tests.factories import add_finished_missions, dm_channel, make_office, make_user
from tests.fake_openai import FAKE_API_KEY, FakeOpenAI, Reply, served_at_once

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    # Its workers take tasks from the queues of REDIS_URL, under the names every test
    # worker's settings give them: under pytest-xdist these tests run one after another.
    pytest.mark.xdist_group("task-queues-of-redis-url"),
    pytest.mark.slow(45),
]

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _deployed(service: str) -> list[str]:
    """A service's command in docker-compose.yml, its `${NAME:-default}`s at their default."""
    import yaml

    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    command = [re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", part) for part in services[service]["command"]]
    return [str(BIN / command[0]), *command[1:]]


def deployed_daphne(port: int) -> list[str]:
    """Daphne as docker-compose runs it (its flags included), on 127.0.0.1:`port`."""
    args = _deployed("web")
    args[args.index("-b") + 1] = "127.0.0.1"
    args[args.index("-p") + 1] = str(port)
    return args


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


class Proc:
    """A child process in its own process group, its output kept for failure messages."""

    def __init__(self, args: list[str], env: dict[str, str], ready: str | None = None) -> None:
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            args,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        if ready:
            try:
                _wait(
                    lambda: (
                        any(ready in line for line in self.lines) or self.process.poll() is not None
                    ),
                    60,
                    f"{args[0]} to start",
                )
                assert self.process.poll() is None, "\n".join(self.lines[-30:])
            except AssertionError:
                self.kill()  # nothing left running for the tests after this one
                raise

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip())

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


def _env(model: FakeOpenAI, redis_url: str, **extra: str) -> dict[str, str]:
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "TASK_"))}
    env.update(
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        REDIS_URL=redis_url,
        LLM_PROVIDER="openai",
        OPENAI_API_KEY=FAKE_API_KEY,
        OPENAI_BASE_URL=model.base_url,
        OPENAI_MODEL="fake-model",
        OPENAI_TIMEOUT="10",
        OPENAI_MAX_ATTEMPTS="1",
        CELERY_VISIBILITY_TIMEOUT="5",
        # As in the test process (tests/conftest.py): a fold as soon as a mission leaves.
        FOLD_BATCH="1",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


# The lanes' services in docker-compose.yml.
REPLIES, BACKGROUND = "worker", "background"


class Workers:
    """The two lanes' Celery workers as deployed: `worker` takes the replies queue on many
    threads, `background` the background queue (folds, extraction, sweeps)."""

    def __init__(
        self,
        env: dict[str, str],
        *background_extra: str,
        lanes: tuple[str, ...] = (REPLIES, BACKGROUND),
    ) -> None:
        self.env = env
        self.background_extra = list(background_extra)
        self.procs: dict[str, Proc] = {}
        try:
            for lane in lanes:
                self.start(lane)
        except AssertionError:
            self.stop()
            raise

    def start(self, lane: str) -> None:
        extra = self.background_extra if lane == BACKGROUND else []
        proc = self.procs[lane] = Proc([*_deployed(lane), *extra], self.env, ready="ready.")
        # Celery's banner: the pool that runs the tasks.
        if not any("(thread)" in line for line in proc.lines):
            self.stop()  # no worker left behind to take the next test's tasks
            raise AssertionError("\n".join(proc.lines[:30]))

    def kill(self, lane: str) -> None:
        """SIGKILL: the worker vanishes with whatever it was doing."""
        self.procs[lane].kill()

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.stop()


def _drop_queued_tasks() -> None:
    """Empty the task queues and the broker's unacknowledged-task bookkeeping of REDIS_URL;
    not the whole database: tests on other xdist workers keep their keys there."""
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL)
    prefix = str(settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("global_keyprefix", ""))
    names = [*(queue.name for queue in settings.CELERY_TASK_QUEUES), "unacked"]
    stale = [key for name in names for key in client.scan_iter(match=f"{prefix}{name}*")]
    if stale:
        client.delete(*stale)


@pytest.fixture
def celery_mode(settings: Any) -> Iterator[None]:
    settings.TASK_RUNNER = "celery"
    _drop_queued_tasks()  # no stale tasks from earlier runs
    yield


def test_a_worker_killed_mid_reply_loses_nothing_and_the_work_completes(
    fake_openai: FakeOpenAI, celery_mode: None
) -> None:
    fake_openai.enqueue(Reply("slow reply " * 10, chunks=["slow reply "] * 10, chunk_delay=1.0))
    env = _env(fake_openai, settings.REDIS_URL)
    workers = Workers(env)
    try:
        channel = dm_channel(make_office(make_user()))
        accepted = instruction_accept(channel=channel, text="Write the long report")
        mission = accepted.mission
        _wait(
            lambda: (
                Mission.objects.get(pk=mission.pk).status == MissionStatus.RUNNING
                and len(fake_openai.requests) >= 1
            ),
            30,
            "the reply to start",
        )
        workers.kill(REPLIES)  # SIGKILL in the middle of the stream
        assert Mission.objects.get(pk=mission.pk).status == MissionStatus.RUNNING
        workers.start(REPLIES)
        # The unacknowledged task comes back after the visibility timeout (5 s here) with
        # the same id, and the new worker takes the abandoned mission over.
        _wait(
            lambda: Mission.objects.get(pk=mission.pk).status == MissionStatus.DONE,
            60,
            "the redelivered mission to finish",
        )
        assert Mission.objects.get(pk=mission.pk).attempts == 2
        assert Mission.objects.filter(channel=channel).count() == 1
        replies = Message.objects.filter(mission=mission, kind="employee")
        assert replies.count() == 1 and replies[0].text.startswith("Echo:")
    finally:
        workers.stop()


def _connections_named(name: str) -> int:
    """Connections to the test database whose application_name is `name`."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s",
            [name],
        )
        return int(cursor.fetchone()[0])


def test_64_replies_wait_for_the_model_at_once_on_a_replies_worker_with_4_connections(
    fake_openai: FakeOpenAI, celery_mode: None, settings: Any
) -> None:
    """The replies worker as deployed (64 threads) with a pool of 4 connections: every
    reply lets its connection go while the model thinks, so all 64 are at the model at
    one moment, and the worker never has more than its 4 connections."""
    settings.INSTRUCTION_RATE_LIMIT = 0
    pool_max, streams = 4, 64
    # Long enough that the last of the 64 prompts (each embeds its question for recall,
    # threads sharing two cores) reaches the model before the first is answered, on a
    # machine busy with the rest of the suite.
    fake_openai.default_delay = 8.0
    # The redelivery tests' 5 s visibility timeout would hand a task still waiting its
    # turn on a loaded machine to a second thread: a duplicate, not what is measured here.
    env = _env(
        fake_openai,
        settings.REDIS_URL,
        DATABASE_POOL_MAX=str(pool_max),
        CELERY_VISIBILITY_TIMEOUT="120",
    )
    env["DATABASE_URL"] += "?application_name=replies-worker"
    workers = Workers(env, lanes=(REPLIES,))
    try:
        channel = dm_channel(make_office(make_user()))
        missions = [
            instruction_accept(channel=channel, text=f"업무 {n}: report {n}").mission
            for n in range(streams)
        ]
        peak = 0

        def all_done() -> bool:
            nonlocal peak
            peak = max(peak, _connections_named("replies-worker"))
            done = Mission.objects.filter(
                pk__in=[m.pk for m in missions], status=MissionStatus.DONE
            )
            return done.count() == streams

        _wait(all_done, 90, "the 64 replies")
        assert 0 < peak <= pool_max
        requests = [r for r in fake_openai.requests if r.body.get("stream")]
        assert len(requests) == streams
        assert served_at_once(requests)
    finally:
        workers.stop()


def test_the_sweeper_requeues_a_mission_whose_worker_never_came_back(
    fake_openai: FakeOpenAI, celery_mode: None
) -> None:
    env = _env(fake_openai, settings.REDIS_URL)
    channel = dm_channel(make_office(make_user()))
    accepted = instruction_accept(channel=channel, text="Draft the memo")
    # As if a worker took it and vanished, and its task was lost with the broker's data.
    Mission.objects.filter(pk=accepted.mission.pk).update(
        status=MissionStatus.RUNNING, run_token="lost", attempts=1, started_at=timezone_now()
    )
    _drop_queued_tasks()
    workers = Workers(env)
    try:
        started = Mission.objects.get(pk=accepted.mission.pk).started_at or timezone_now()
        counts = mission_sweep_stuck(
            now=started + timedelta(seconds=settings.MISSION_STUCK_AFTER + 1)
        )
        assert counts["requeued"] == 1
        _wait(
            lambda: Mission.objects.get(pk=accepted.mission.pk).status == MissionStatus.DONE,
            60,
            "the re-queued mission to finish",
        )
        assert Message.objects.filter(mission=accepted.mission, kind="employee").count() == 1
    finally:
        workers.stop()


def test_a_worker_killed_mid_fold_folds_each_mission_once_after_restart(
    fake_openai: FakeOpenAI, celery_mode: None, settings: Any
) -> None:
    settings.TASK_RUNNER = "inline"
    channel = dm_channel(make_office(make_user()))
    session = channel.sessions.get()
    from summaries import tasks

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tasks.summary_fold, "delay_on_commit", lambda *a, **k: None)
        add_finished_missions(session, 12)  # 1..4 wait to be folded
    settings.TASK_RUNNER = "celery"
    # The model takes its time over the fold: the worker dies while it thinks.
    fake_openai.enqueue(Reply("{}", delay=8.0))
    env = _env(fake_openai, settings.REDIS_URL)
    workers = Workers(env)
    try:
        tasks.summary_fold.delay(session.pk)
        _wait(lambda: len(fake_openai.requests) >= 1, 30, "the fold to reach the model")
        workers.kill(BACKGROUND)
        assert RollingSummary.objects.get(session=session).folded_through_seq == 0
        workers.start(BACKGROUND)
        # The unacknowledged fold comes back to the restarted worker after the visibility
        # timeout, and the sweep queues one more while the fold is still due: either way
        # (both, if the sweep runs first), each mission is folded once.
        summary_sweep_lagging()
        _wait(
            lambda: RollingSummary.objects.get(session=session).folded_through_seq == 4,
            60,
            "the fold to land",
        )
        summary = RollingSummary.objects.get(session=session)
        state = SummaryState.model_validate(summary.state)
        covered = {seq for _, seq in state_refs(state)} | {d.mission for d in state.dropped}
        assert covered == {1, 2, 3, 4}
        folded: list[int] = []
        for revision in SummaryRevision.objects.filter(summary=summary):
            folded += revision.folded_mission_ids
        assert sorted(folded) == sorted(
            Mission.objects.filter(session=session, seq__lte=4).values_list("id", flat=True)
        )
    finally:
        workers.stop()


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_with_the_broker_down_instructions_are_saved_shown_delayed_and_answered_later(
    fake_openai: FakeOpenAI, settings: Any, tmp_path: Path
) -> None:
    """A private Redis, stopped while an instruction arrives through the web server."""
    port = _free_port()
    redis_url = f"redis://127.0.0.1:{port}/0"
    redis_args = [
        "redis-server",
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
    ]
    redis = Proc(redis_args, dict(os.environ), ready="Ready to accept connections")
    web_port = _free_port()
    env = _env(
        fake_openai,
        redis_url,
        MISSION_QUEUED_RESEND_AFTER="10",
        SWEEP_INTERVAL="5",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        INSTRUCTION_RATE_LIMIT="0",
    )
    web = Proc(
        [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(web_port), "config.asgi:application"],
        env,
        ready="Listening on TCP address",
    )
    workers = Workers(env, "-B", "-s", str(tmp_path / "beat-schedule"))
    try:
        user = make_user("broker", password="broker-pass-1", served=True)
        channel = dm_channel(make_office(user))
        redis.stop()
        import base64
        import json
        import urllib.request

        token = base64.b64encode(b"broker:broker-pass-1").decode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{web_port}/api/channels/{channel.pk}/instructions",
            data=json.dumps({"text": "Plan the offsite", "client_id": "b1"}).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Basic {token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 202
        mission = Mission.objects.get(channel=channel)
        assert mission.status == MissionStatus.QUEUED
        _wait(
            lambda: Message.objects.filter(mission=mission, payload__event="delayed").exists(),
            20,
            "the delayed notice",
        )
        redis = Proc(redis_args, dict(os.environ), ready="Ready to accept connections")
        _wait(
            lambda: Mission.objects.get(pk=mission.pk).status == MissionStatus.DONE,
            90,
            "the instruction to be answered once the broker is back",
        )
        assert Mission.objects.filter(channel=channel).count() == 1
        assert Message.objects.filter(mission=mission, kind="employee").count() == 1
    finally:
        workers.stop()
        for proc in (web, redis):
            proc.stop()


def test_a_refold_chord_runs_on_real_workers(
    fake_openai: FakeOpenAI, celery_mode: None, settings: Any
) -> None:
    """The admin's parallel re-fold as production runs it: a chord over the broker, block
    results through the Redis result backend, the merge as its callback."""
    settings.TASK_RUNNER = "inline"
    channel = dm_channel(make_office(make_user()))
    session = channel.sessions.get()
    add_finished_missions(session, 60)
    summary = RollingSummary.objects.get(session=session)
    version = summary.version
    settings.TASK_RUNNER = "celery"
    env = _env(fake_openai, settings.REDIS_URL, LLM_PROVIDER="offline")
    workers = Workers(env)
    try:
        from summaries.compaction import compaction_queue

        assert compaction_queue(session_id=session.pk, from_scratch=True) == 3
        _wait(
            lambda: RollingSummary.objects.get(session=session).version > version,
            60,
            "the merged re-fold to land",
        )
        latest = SummaryRevision.objects.filter(summary=summary).order_by("-version").first()
        assert latest is not None and latest.kind == "refold"
        assert latest.verifier_report["ok"] is True
        state = SummaryState.model_validate(RollingSummary.objects.get(session=session).state)
        covered = {seq for _, seq in state_refs(state)} | {d.mission for d in state.dropped}
        assert covered == set(range(1, 53))
    finally:
        workers.stop()
