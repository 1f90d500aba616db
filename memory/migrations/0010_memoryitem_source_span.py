import re

from django.db import migrations, models


def _key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def stated_items_keep_their_source(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Items extracted before provenance was recorded: one whose text stands word for word
    in the instruction of its mission was taken from what the person said (the offline
    patterns keep their words), so it is protected like any item they state from now on.
    A model's paraphrase is not recognisable after the fact and stays unprotected."""
    MemoryItem = apps.get_model("memory", "MemoryItem")
    extracted = MemoryItem.objects.filter(
        origin="extracted", source_span="", source_mission__isnull=False
    ).select_related("source_mission")
    for item in extracted.iterator():
        instruction = item.source_mission.instruction
        if _key(item.text) and _key(item.text) in _key(instruction):
            item.source_span = instruction[:1000]
            item.save(update_fields=["source_span"])


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0009_translated_labels"),
        ("missions", "0009_translated_labels"),
    ]

    operations = [
        migrations.AddField(
            model_name="memoryitem",
            name="source_span",
            field=models.TextField(blank=True, default="", verbose_name="the person's words"),
        ),
        migrations.RunPython(stated_items_keep_their_source, migrations.RunPython.noop),
    ]
