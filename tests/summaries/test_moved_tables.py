"""Rolling summaries moved from the memory app to their own: a database migrated before
the move keeps its summaries, revisions and permissions after it, in tables named after
the summaries app."""

import pytest
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from office.models import Channel, Office
from sessions.models import ChatSession
from summaries.models import RollingSummary, SummaryRevision

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("memory", "0002_fulltext"), ("summaries", None)]


@pytest.mark.slow(20)
def test_summaries_written_before_the_move_are_there_after_it() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    executor.loader.build_graph()
    old = executor.loader.project_state([("memory", "0002_fulltext")]).apps
    # Only the moved models need their historical form; the other tables did not change.
    owner = User.objects.create(username="before-the-move")
    office = Office.objects.create(owner=owner, name="Acme")
    channel = Channel.objects.create(office=office, kind="master", name="Master")
    session = ChatSession.objects.create(channel=channel, number=1)
    summary = old.get_model("memory", "RollingSummary").objects.create(
        session_id=session.pk,
        text="Decisions:\n- Price is $29 [#3]",
        folded_through_seq=3,
        version=1,
    )
    old.get_model("memory", "SummaryRevision").objects.create(
        summary=summary, version=1, kind="fold", after_text=summary.text, folded_through_seq=3
    )
    # Going back relabelled the content type (and its permissions) to the memory app.
    summary_type, _ = ContentType.objects.get_or_create(app_label="memory", model="rollingsummary")
    permission, _ = Permission.objects.get_or_create(
        content_type=summary_type,
        codename="change_rollingsummary",
        defaults={"name": "Can change rolling summary"},
    )
    owner.user_permissions.add(permission)

    call_command("migrate", verbosity=0)

    moved = RollingSummary.objects.get(session_id=session.pk)
    assert (moved.text, moved.folded_through_seq, moved.version) == (summary.text, 3, 1)
    assert SummaryRevision.objects.get(summary=moved).after_text == summary.text
    assert User.objects.get(pk=owner.pk).has_perm("summaries.change_rollingsummary")
    tables = set(connection.introspection.table_names())
    assert {"summaries_rollingsummary", "summaries_summaryrevision"} <= tables
    assert not {"memory_rollingsummary", "memory_summaryrevision"} & tables
    # The renamed tables still take new rows (their keys' sequences followed them).
    again = SummaryRevision.objects.create(summary=moved, version=2, kind="fold")
    assert again.pk > SummaryRevision.objects.get(summary=moved, version=1).pk
