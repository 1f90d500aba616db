"""Search terms written again with the values of each memory item (language.values)."""

from django.db import migrations


def _reterm(apps, schema_editor):  # type: ignore[no-untyped-def]
    from language.reindex import reterm

    reterm(apps.get_model("memory", "MemoryItem"), hangul_only=False)


class Migration(migrations.Migration):
    dependencies = [("memory", "0007_memory_proposal")]

    operations = [migrations.RunPython(_reterm, migrations.RunPython.noop)]
