"""Meeting follow-ups posted before they carried where they came from: their message in
the employee's 1:1 gets the same attribution and link back as new ones
(missions.selectors.followup_payload), so none is shown as something the person typed
there."""

from typing import Any

from django.db import migrations

BATCH = 500


def forwards(apps: Any, schema_editor: Any) -> None:
    Message = apps.get_model("missions", "Message")
    rows = (
        Message.objects.filter(
            kind="user", mission__source="meeting_followup", mission__parent__isnull=False
        )
        .select_related("mission__parent")
        .order_by("pk")
    )
    changed = []
    for message in rows.iterator(chunk_size=BATCH):
        if "follow_up_of" in message.payload:
            continue
        source = message.mission.parent
        message.payload = {
            **message.payload,
            "written_by": "office",
            "follow_up_of": source.seq,
            "from_channel": source.channel_id,
            "from_url": f"/c/{source.channel_id}/#mission-{source.seq}",
        }
        changed.append(message)
        if len(changed) >= BATCH:
            Message.objects.bulk_update(changed, ["payload"])
            changed = []
    if changed:
        Message.objects.bulk_update(changed, ["payload"])


class Migration(migrations.Migration):
    dependencies = [("missions", "0009_translated_labels")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
