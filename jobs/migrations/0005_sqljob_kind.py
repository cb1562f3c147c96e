from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0004_job_parameters'),
    ]

    operations = [
        migrations.AddField(
            model_name='sqljob',
            name='kind',
            field=models.CharField(choices=[('batch', 'Batch'), ('streaming', 'Streaming')], default='batch',
                                   help_text='streaming: the script ends with one streaming INSERT, run by streams/.',
                                   max_length=16),
        ),
    ]
