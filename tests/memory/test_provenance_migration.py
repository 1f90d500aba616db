"""Items extracted before provenance was recorded: one whose text stands word for word in
its mission's instruction was taken from the person's words and becomes theirs; a model's
paraphrase cannot be told after the fact and stays a model's."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from memory.models import MemoryItem
from tests.factories import add_finished_missions, dm_channel, make_office

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("memory", "0009_translated_labels")]
AFTER = [("memory", "0011_proposal_replaces_named")]


def test_items_taken_word_for_word_from_the_persons_words_become_theirs() -> None:
    office = make_office()
    channel = dm_channel(office, "Mara")
    said = "Please draft the memo. Always cc Jamie on invoices. 보고서는 항상 PDF로 보내 주세요."
    add_finished_missions(channel.sessions.get(), 1, text=lambda n: (said, "Done."))
    mission = channel.missions.get()
    MemoryItem.objects.all().delete()

    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    executor.loader.build_graph()
    old = executor.loader.project_state(BEFORE).apps
    OldItem = old.get_model("memory", "MemoryItem")
    common = {
        "office_id": office.pk,
        "scope": "employee",
        "employee_id": channel.employee_id,
        "origin": "extracted",
        "source_mission_id": mission.pk,
    }
    verbatim = OldItem.objects.create(kind="rule", text="Always cc Jamie on invoices", **common)
    korean = OldItem.objects.create(kind="rule", text="보고서는 항상 PDF로 보내 주세요", **common)
    paraphrase = OldItem.objects.create(
        kind="rule", text="Jamie is copied on every invoice", **common
    )

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)

    try:
        assert MemoryItem.objects.get(pk=verbatim.pk).stated_by_person
        assert MemoryItem.objects.get(pk=korean.pk).source_span == said
        assert not MemoryItem.objects.get(pk=paraphrase.pk).stated_by_person
    finally:
        # The migrations after it too: the tests after this one use the whole schema.
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
