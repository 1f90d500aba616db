import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, ValidationError

from config.celery import wait_for_background_tasks
from context.window import window_left_through
from missions.dispatch import SOURCE_FOR_KIND
from missions.intake import mission_record_finished
from office.models import Channel, ChannelKind, Office
from office.selectors import channel_default_assignee
from office.services import office_create_with_team
from sessions.models import ChatSession
from sessions.services import session_get_or_open_current, session_start_new
from summaries.models import RollingSummary
from summaries.services import summary_fold


class ReplayLine(BaseModel):
    model_config = ConfigDict(extra="ignore")

    instruction: str
    reply: str
    at: datetime | None = None


class Command(BaseCommand):
    help = (
        'Append finished missions from a JSON Lines file (one {"instruction", "reply", '
        'optional "at"} object per line) to a channel\'s current session, running the folds '
        "as the runtime would and waiting for them. The last line printed is "
        '{"channel": ID, "session": ID}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="JSON Lines file ('-' reads standard input)")
        parser.add_argument(
            "--office",
            default="Replay office",
            help="office name, created with the default team if missing",
        )
        parser.add_argument(
            "--owner", default="demo", help="owner of a newly created office (created if missing)"
        )
        parser.add_argument(
            "--channel-kind",
            choices=[k.value for k in ChannelKind],
            default="dm",
            help="which channel of the office (default: dm)",
        )
        parser.add_argument("--channel", type=int, help="channel id; overrides the two above")
        parser.add_argument("--employee", help="for --channel-kind dm: whose 1:1 channel")
        parser.add_argument(
            "--new-session",
            action="store_true",
            help="start a new session (carrying the summary over) first",
        )
        parser.add_argument(
            "--skip-bad-lines",
            action="store_true",
            help="report malformed lines and replay the rest; by default one "
            "malformed line aborts before anything is written",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=600.0,
            help="seconds to wait for the folds (default 600)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        lines = self._read(options["path"], skip=options["skip_bad_lines"])
        channel = self._channel(options)
        session = session_get_or_open_current(channel=channel)
        if options["new_session"]:
            session = session_start_new(channel=channel, expected_session_id=session.pk)
        assignee = channel_default_assignee(channel=channel)
        source = SOURCE_FOR_KIND[ChannelKind(channel.kind)]
        total = len(lines)
        for done, line in enumerate(lines, start=1):
            at = line.at
            if at is not None and timezone.is_naive(at):
                at = timezone.make_aware(at)
            mission_record_finished(
                session=session,
                assignee=assignee,
                instruction=line.instruction,
                reply=line.reply,
                source=source,
                at=at,
            )
            self._progress(done, total)
        if total:
            self.stderr.write("")
        self._wait_for_folds(session, options["timeout"])
        self.stdout.write(json.dumps({"channel": channel.pk, "session": session.pk}))

    def _read(self, path: str, *, skip: bool) -> list[ReplayLine]:
        try:
            raw = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
        parsed: list[ReplayLine] = []
        errors: list[str] = []
        for number, text in enumerate(raw.splitlines(), start=1):
            if not text.strip():
                continue
            try:
                parsed.append(ReplayLine.model_validate_json(text))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "line"
                errors.append(f"line {number}: {where}: {first['msg']}")
        for error in errors:
            self.stderr.write(error)
        if errors and not skip:
            raise CommandError(
                f"{len(errors)} malformed line(s); nothing was written "
                "(use --skip-bad-lines to replay the others)"
            )
        return parsed

    def _channel(self, options: dict[str, Any]) -> Channel:
        if options["channel"] is not None:
            channel = Channel.objects.select_related("office").filter(pk=options["channel"]).first()
            if channel is None:
                raise CommandError(f"no channel with id {options['channel']}")
            return channel
        User = get_user_model()
        office = Office.objects.filter(name=options["office"]).order_by("id").first()
        if office is None:
            owner, _ = User.objects.get_or_create(username=options["owner"])
            office = office_create_with_team(owner=owner, name=options["office"])
        channels = office.channels.filter(kind=options["channel_kind"])
        if options["channel_kind"] == ChannelKind.DM:
            if options["employee"]:
                channels = channels.filter(employee__name=options["employee"])
            else:
                channels = channels.filter(employee__is_master=False)
        channel = channels.select_related("office").order_by("id").first()
        if channel is None:
            raise CommandError(
                f"office {office.name!r} has no such {options['channel_kind']} channel"
            )
        return channel

    def _progress(self, done: int, total: int) -> None:
        width = 30
        filled = width * done // total
        self.stderr.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} missions", ending=""
        )
        self.stderr.flush()

    def _wait_for_folds(self, session: ChatSession, timeout: float) -> None:
        """Until every replayed mission out of the detail window is folded. Folds run in
        batches; the last, smaller batch is folded here, whatever the batch size."""
        deadline = time.monotonic() + timeout
        while True:
            if settings.TASK_RUNNER == "thread":
                wait_for_background_tasks(timeout=max(deadline - time.monotonic(), 1))
            summary = RollingSummary.objects.filter(session=session).first()
            landed = summary.folded_through_seq if summary else 0
            carrying = bool(summary and summary.carry_over_pending)
            if landed >= window_left_through(session_id=session.pk) and not carrying:
                return
            if not carrying:
                summary_fold(session_id=session.pk, force=True)
            if time.monotonic() > deadline:
                raise CommandError("timed out waiting for the folds; are the workers running?")
            time.sleep(0.2)
