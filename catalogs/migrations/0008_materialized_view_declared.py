from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("catalogs", "0007_materialized_view_refresh_again"),
    ]

    operations = [
        migrations.AddField(
            model_name="materializedview",
            name="declared",
            field=models.JSONField(blank=True, default=dict, help_text=(
                "The `apply -f` entry that made the view ({query, partitioned_by}); empty for a view made by SQL.")),
        ),
    ]
