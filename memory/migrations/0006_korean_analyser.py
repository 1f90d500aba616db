"""Korean search terms written again by the morphological analyser (language.analysis):
rows holding Hangul only, English is normalised as before."""

from django.db import migrations


def _reterm(apps, schema_editor):  # type: ignore[no-untyped-def]
    from language.reindex import reterm

    reterm(apps.get_model("memory", "MemoryItem"))


class Migration(migrations.Migration):
    dependencies = [("memory", "0005_fulltext_terms")]

    operations = [migrations.RunPython(_reterm, migrations.RunPython.noop)]
