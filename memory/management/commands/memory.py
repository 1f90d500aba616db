from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.models import MemoryItem, MemoryKind, MemoryOrigin, MemoryScope
from memory.services import (
    MemoryRejected,
    memory_item_create,
    memory_item_retire,
    memory_target,
)
from office.models import Channel, Office


class Command(BaseCommand):
    help = "List, add and retire long-term memory items."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        listing = sub.add_parser("list", help="items, newest first")
        listing.add_argument("--office", help="office name")
        listing.add_argument("--scope", choices=MemoryScope.values)
        listing.add_argument("--all", action="store_true", help="include retired items")
        add = sub.add_parser("add", help="remember something")
        add.add_argument("text")
        add.add_argument("--office", required=True, help="office name")
        add.add_argument("--scope", choices=MemoryScope.values, default="office")
        add.add_argument("--employee", help="employee name (scope employee)")
        add.add_argument("--channel", type=int, help="channel id (scope channel)")
        add.add_argument("--kind", choices=MemoryKind.values, default="fact")
        add.add_argument("--pinned", action="store_true")
        retire = sub.add_parser("retire", help="stop using an item (it is kept)")
        retire.add_argument("id", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        getattr(self, f"_{options['action']}")(options)

    def _office(self, name: str) -> Office:
        office = Office.objects.filter(name=name).order_by("id").first()
        if office is None:
            raise CommandError(f"no office named {name!r}")
        return office

    def _list(self, options: dict[str, Any]) -> None:
        items = MemoryItem.objects.select_related("office", "employee", "channel")
        if options["office"]:
            items = items.filter(office=self._office(options["office"]))
        if options["scope"]:
            items = items.filter(scope=options["scope"])
        if not options["all"]:
            items = items.filter(active=True)
        for item in items.order_by("-pinned", "-updated_at")[:500]:
            where = (
                item.employee.name
                if item.employee
                else (item.channel.name if item.channel else item.office.name)
            )
            flags = ("pinned " if item.pinned else "") + ("" if item.active else "retired ")
            self.stdout.write(
                f"{item.pk:>6}  {item.kind:<10} {item.scope:<8} {where:<16} "
                f"{flags}{item.origin:<9} {item.text}"
            )

    def _add(self, options: dict[str, Any]) -> None:
        office = self._office(options["office"])
        employee = (
            office.employees.filter(name=options["employee"]).first()
            if options["employee"]
            else None
        )
        channel = (
            Channel.objects.filter(pk=options["channel"], office=office).first()
            if options["channel"]
            else None
        )
        try:
            target = memory_target(
                office=office, scope=options["scope"], employee=employee, channel=channel
            )
            item = memory_item_create(
                target=target,
                kind=options["kind"],
                text=options["text"],
                origin=MemoryOrigin.ADMIN,
                pinned=options["pinned"],
            )
        except MemoryRejected as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(str(item.pk))

    def _retire(self, options: dict[str, Any]) -> None:
        item = MemoryItem.objects.filter(pk=options["id"]).first()
        if item is None:
            raise CommandError(f"no memory item {options['id']}")
        memory_item_retire(item=item)
        self.stdout.write(f"retired {item.pk}")
