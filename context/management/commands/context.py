import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from context.rendering import AssembledContext
from context.selectors import context_for_next
from office.models import Channel
from sessions.selectors import session_current


class Command(BaseCommand):
    help = (
        "Show the context the next mission in a channel would get: each section, its chars "
        "and budget, and the missions and memory items it holds."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("channel_id", type=int)
        parser.add_argument(
            "--instruction", default="", help="the next instruction (ranks memory and recall)"
        )
        parser.add_argument(
            "--instructions-file",
            help="one instruction per line; with --json prints one report a line, in one process",
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        channel = (
            Channel.objects.select_related("office", "employee", "lead")
            .filter(pk=options["channel_id"])
            .first()
        )
        if channel is None:
            raise CommandError(f"no channel with id {options['channel_id']}")
        session = session_current(channel=channel)
        if session is None:
            raise CommandError(f"channel {channel.pk} has no session")
        if options["instructions_file"]:
            if not options["json"]:
                raise CommandError("--instructions-file goes with --json")
            path = Path(options["instructions_file"])
            try:
                instructions = path.read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                raise CommandError(f"cannot read {path}: {exc.strerror}") from None
            for instruction in instructions:
                if instruction.strip():
                    context = context_for_next(
                        channel=channel, session=session, instruction=instruction
                    )
                    self.stdout.write(json.dumps(context.report(), ensure_ascii=False))
            return
        context = context_for_next(
            channel=channel, session=session, instruction=options["instruction"]
        )
        if options["json"]:
            self.stdout.write(json.dumps(context.report(), ensure_ascii=False))
        else:
            self.stdout.write(self._table(channel, context))

    def _table(self, channel: Channel, context: AssembledContext) -> str:
        rows = [
            f"Channel {channel.pk} ({channel}), next mission #{context.label or context.seq}",
            "",
            f"{'section':<9} {'chars':>7} {'budget':>7}  missions / memory items",
        ]
        for section in context.sections:
            budget = "-" if section.budget is None else str(section.budget)
            held = []
            if section.mission_labels:
                held.append("missions " + ", ".join(f"#{s}" for s in section.mission_labels))
            if section.memory_ids:
                held.append("memory " + ", ".join(str(i) for i in section.memory_ids))
            rows.append(f"{section.name:<9} {section.chars:>7} {budget:>7}  {'; '.join(held)}")
        rows.append(f"{'total':<9} {context.total_chars:>7}")
        rows.append(
            f"{'prefix':<9} {context.stable_prefix_chars:>7}  the first "
            f"{context.stable_messages} messages, byte-identical until the next fold"
        )
        return "\n".join(rows)
