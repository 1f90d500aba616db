import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """The link from a proposal to the items it would replace becomes a model of its own,
    on the same table and columns Django made for it: a change of state only."""

    dependencies = [
        ("memory", "0010_memoryitem_source_span"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ProposalReplaces",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "item",
                            models.ForeignKey(
                                db_column="memoryitem_id",
                                on_delete=django.db.models.deletion.CASCADE,
                                to="memory.memoryitem",
                                verbose_name="memory item",
                            ),
                        ),
                        (
                            "proposal",
                            models.ForeignKey(
                                db_column="memoryproposal_id",
                                on_delete=django.db.models.deletion.CASCADE,
                                to="memory.memoryproposal",
                                verbose_name="memory proposal",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "item a proposal would replace",
                        "verbose_name_plural": "items proposals would replace",
                        "db_table": "memory_memoryproposal_replaces",
                    },
                ),
                migrations.AlterField(
                    model_name="memoryproposal",
                    name="replaces",
                    field=models.ManyToManyField(
                        related_name="replacement_proposals",
                        through="memory.ProposalReplaces",
                        to="memory.memoryitem",
                        verbose_name="replaces",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
