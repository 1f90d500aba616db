"""Run as a script on a fresh SQLite file: migrate (a migration that rebuilds a table drops
its triggers), then check that recall's full-text index still follows
new missions. Prints the ids it found."""

import os

import django

os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
os.environ["TASK_RUNNER"] = "inline"
django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402

from context.loading import recall_candidates  # noqa: E402
from context.models import Passage  # noqa: E402
from context.search import rank_passages  # noqa: E402
from missions.intake import mission_record_finished  # noqa: E402
from office.services import office_create_with_team  # noqa: E402

call_command("migrate", verbosity=0)
office = office_create_with_team(owner=get_user_model().objects.create(username="u"), name="o")
channel = office.channels.get(kind="dm", employee__name="Theo")
session = channel.sessions.get()
theo = office.employees.get(name="Theo")
for n in range(1, 13):
    text = "The quokka mascot is approved." if n == 1 else f"Task {n}."
    mission_record_finished(session=session, assignee=theo, instruction=text, reply=f"Done {n}.")
found = rank_passages(
    candidates=recall_candidates(channel_id=channel.pk, session_id=session.pk, window_start=5),
    text="quokka",
    limit=5,
)
print([Passage.objects.get(pk=i).seq for i in found] == [1])
