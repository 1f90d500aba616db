from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("chat_sessions", "0002_translated_labels")]

    operations = [
        migrations.AddField(
            model_name="chatsession",
            name="synthesis_count",
            field=models.PositiveIntegerField(default=0, verbose_name="syntheses"),
        ),
    ]
