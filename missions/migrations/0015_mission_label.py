from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("missions", "0014_translated_labels_of_new_fields")]

    operations = [
        migrations.AddField(
            model_name="mission",
            name="label",
            field=models.CharField(default="", max_length=16, verbose_name="number shown"),
            preserve_default=False,
        ),
    ]
