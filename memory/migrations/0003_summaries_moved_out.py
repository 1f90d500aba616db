# RollingSummary and SummaryRevision now belong to the summaries app (its 0001 takes them
# over with their tables); here they only leave this app's state. No table is dropped.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0002_fulltext'),
        ('summaries', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='SummaryRevision'),
                migrations.DeleteModel(name='RollingSummary'),
            ],
            database_operations=[],
        ),
    ]
