import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from office.models import Office
from office.services import office_create_with_team, staff_access_grant

DEMO_OFFICE = "Demo office"


class Command(BaseCommand):
    help = (
        "Create the demo: a user 'demo' who is staff of its own office in the admin "
        "(memory, summaries, missions, team), and an office with a chief of staff, three "
        "specialists, their 1:1 channels, the master and all-hands channels and a project "
        "channel. Safe to run again: nothing is created twice. With --superuser NAME, also "
        "an operator account that sees every office in the admin."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="demo", help="login name (default: demo)")
        parser.add_argument(
            "--password",
            default="demo",
            help="password, set only when the user is created (default: demo)",
        )
        parser.add_argument(
            "--superuser",
            metavar="NAME",
            help="also create an operator (superuser) of that name, if there is none",
        )
        parser.add_argument(
            "--superuser-password",
            metavar="PASSWORD",
            help="the operator's password (default: a random one, printed once)",
        )

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        user, created = User.objects.get_or_create(username=options["username"])
        if created:
            user.set_password(options["password"])
            user.save(update_fields=["password"])
        staff_access_grant(user=user)
        if options["superuser"]:
            self._operator(options["superuser"], options["superuser_password"])
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

    def _operator(self, name: str, password: str | None) -> None:
        User = get_user_model()
        if User.objects.filter(username=name).exists():
            self.stdout.write(f"User '{name}' already exists; left as it is.")
            return
        chosen = password or secrets.token_urlsafe(12)
        User.objects.create_superuser(username=name, password=chosen, email="")
        shown = "" if password else f" with password {chosen} (shown once)"
        self.stdout.write(self.style.SUCCESS(f"Created the operator '{name}'{shown}."))
