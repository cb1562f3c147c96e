"""Bodies of `POST /apply/` (their component names, ApplyInput and ApplyResult, are the generated clients')."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from catalogs.serializers import CatalogInputSerializer


class ApplyInputSerializer(serializers.Serializer[Any]):
    catalogs = CatalogInputSerializer(many=True)
    prune = serializers.BooleanField(default=False, help_text="Delete the team's catalogs not listed.")
    dry_run = serializers.BooleanField(default=False, help_text="Report what would change; change nothing.")


class ApplyResultSerializer(serializers.Serializer[Any]):
    created = serializers.ListField(child=serializers.CharField())
    updated = serializers.ListField(child=serializers.CharField())
    deleted = serializers.ListField(child=serializers.CharField())
    unchanged = serializers.ListField(child=serializers.CharField())
    dry_run = serializers.BooleanField()
    jobs = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                 help_text="created/updated/deleted/unchanged job names, when the document has `jobs`.")
    schedules = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                      help_text="The same for a `schedules` section.")
    materialized_views = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), required=False,
        help_text="updated/unchanged views (refresh settings), when the document has `materialized_views`.")
    alert_channels = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                           help_text="The same for an `alert_channels` section.")
    alert_rules = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                        help_text="The same for an `alert_rules` section.")
    groups = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                   help_text="The same for a `groups` section.")
    grants = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                   help_text="The same for a `grants` section, each grant named "
                                             "`SELECT ON lake.sales.orders TO GROUP analysts`.")
    row_filters = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                        help_text="The same for a `row_filters` section, each named by its table.")
    column_masks = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                         help_text="The same for a `column_masks` section, each named "
                                                   "`catalog.schema.table.column`.")
