"""Korean search terms written again by the morphological analyser (language.analysis):
rows holding Hangul only, English is normalised as before."""

from django.db import migrations


def _reterm(apps, schema_editor):  # type: ignore[no-untyped-def]
    from language.reindex import reterm

    reterm(apps.get_model("context", "Passage"))


class Migration(migrations.Migration):
    dependencies = [("context", "0003_fulltext_channel")]

    operations = [migrations.RunPython(_reterm, migrations.RunPython.noop)]
