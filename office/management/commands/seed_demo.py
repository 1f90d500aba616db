from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from office.models import Office
from office.services import office_create_with_team

DEMO_OFFICE = "Demo office"


class Command(BaseCommand):
    help = (
        "Create the demo: a staff user 'demo' and an office with a chief of staff, three "
        "specialists, their 1:1 channels, the master and all-hands channels and a project "
        "channel. Safe to run again: nothing is created twice."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="demo", help="login name (default: demo)")
        parser.add_argument(
            "--password",
            default="demo",
            help="password, set only when the user is created (default: demo)",
        )

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        user, created = User.objects.get_or_create(
            username=options["username"], defaults={"is_staff": True}
        )
        if created:
            user.set_password(options["password"])
            user.save(update_fields=["password"])
        if Office.objects.filter(owner=user, name=DEMO_OFFICE).exists():
            self.stdout.write(f"Demo office already exists for '{user.username}'; nothing to do.")
            return
        office = office_create_with_team(owner=user, name=DEMO_OFFICE)
        self.stdout.write(
            self.style.SUCCESS(
                f"Created '{office.name}' with {office.employees.count()} employees and "
                f"{office.channels.count()} channels for '{user.username}'."
            )
        )
