# Rolling summaries moved here from the memory app. Their tables stay where they are
# (memory_rollingsummary, memory_summaryrevision): this migration only tells Django's
# state that the models now belong to this app; the database is not touched.

import django.db.models.deletion
from django.db import migrations, models


def _move_content_types(apps, schema_editor):
    # Permissions and admin history point at content types: keep them by relabelling.
    ContentType = apps.get_model('contenttypes', 'ContentType')
    for model in ('rollingsummary', 'summaryrevision'):
        if not ContentType.objects.filter(app_label='summaries', model=model).exists():
            ContentType.objects.filter(app_label='memory', model=model).update(app_label='summaries')


def _restore_content_types(apps, schema_editor):
    ContentType = apps.get_model('contenttypes', 'ContentType')
    for model in ('rollingsummary', 'summaryrevision'):
        ContentType.objects.filter(app_label='summaries', model=model).update(app_label='memory')


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('chat_sessions', '0001_initial'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('memory', '0002_fulltext'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='RollingSummary',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('state', models.JSONField(blank=True, default=dict, help_text='summaries.schemas.SummaryState')),
                        ('text', models.TextField(blank=True, help_text='The state rendered for the prompt.')),
                        ('folded_through_seq', models.PositiveIntegerField(default=0, help_text='Every mission with seq up to this is folded into the state.')),
                        ('version', models.PositiveIntegerField(default=0)),
                        ('carry_over_pending', models.BooleanField(default=False, help_text="The previous session's summary and last missions are still being folded in.")),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('session', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='summary', to='chat_sessions.chatsession')),
                    ],
                    options={
                        'verbose_name_plural': 'rolling summaries',
                        'db_table': 'memory_rollingsummary',
                    },
                ),
                migrations.CreateModel(
                    name='SummaryRevision',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('version', models.PositiveIntegerField()),
                        ('kind', models.CharField(choices=[('fold', 'Fold'), ('carry_over', 'Carry-over'), ('rollback', 'Roll back'), ('refold', 'Re-fold')], max_length=12)),
                        ('before_state', models.JSONField(blank=True, default=dict)),
                        ('after_state', models.JSONField(blank=True, default=dict)),
                        ('before_text', models.TextField(blank=True)),
                        ('after_text', models.TextField(blank=True)),
                        ('folded_mission_ids', models.JSONField(blank=True, default=list)),
                        ('folded_through_seq', models.PositiveIntegerField(default=0)),
                        ('verifier_report', models.JSONField(blank=True, default=dict)),
                        ('provider', models.CharField(blank=True, max_length=60)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('summary', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='revisions', to='summaries.rollingsummary')),
                    ],
                    options={
                        'db_table': 'memory_summaryrevision',
                        'ordering': ['summary', '-version'],
                        'constraints': [models.UniqueConstraint(fields=('summary', 'version'), name='revision_version_unique_per_summary')],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(_move_content_types, _restore_content_types),
    ]
