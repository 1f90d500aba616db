from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("missions", "0016_backfill_labels")]

    operations = [
        migrations.AddConstraint(
            model_name="mission",
            constraint=models.UniqueConstraint(
                fields=("session", "label"), name="mission_label_unique_per_session"
            ),
        ),
    ]
