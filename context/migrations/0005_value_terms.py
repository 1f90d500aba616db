"""Search terms written again with the values of each passage (language.values): amounts,
dates and percentages also indexed as normalised value terms, in English rows too."""

from django.db import migrations


def _reterm(apps, schema_editor):  # type: ignore[no-untyped-def]
    from language.reindex import reterm

    reterm(apps.get_model("context", "Passage"), hangul_only=False)


class Migration(migrations.Migration):
    dependencies = [("context", "0004_korean_analyser")]

    operations = [migrations.RunPython(_reterm, migrations.RunPython.noop)]
