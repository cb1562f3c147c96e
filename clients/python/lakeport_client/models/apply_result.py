from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.apply_result_alert_channels import ApplyResultAlertChannels
    from ..models.apply_result_alert_rules import ApplyResultAlertRules
    from ..models.apply_result_column_masks import ApplyResultColumnMasks
    from ..models.apply_result_grants import ApplyResultGrants
    from ..models.apply_result_groups import ApplyResultGroups
    from ..models.apply_result_jobs import ApplyResultJobs
    from ..models.apply_result_materialized_views import ApplyResultMaterializedViews
    from ..models.apply_result_row_filters import ApplyResultRowFilters
    from ..models.apply_result_schedules import ApplyResultSchedules


T = TypeVar("T", bound="ApplyResult")


@_attrs_define
class ApplyResult:
    """
    Example:
        {'created': ['lake'], 'updated': ['sales_pg'], 'deleted': [], 'unchanged': []}

    Attributes:
        created (list[str]):
        updated (list[str]):
        deleted (list[str]):
        unchanged (list[str]):
        dry_run (bool):
        jobs (ApplyResultJobs | Unset): created/updated/deleted/unchanged job names, when the document has `jobs`.
        schedules (ApplyResultSchedules | Unset): The same for a `schedules` section.
        materialized_views (ApplyResultMaterializedViews | Unset): updated/unchanged views (refresh settings), when the
            document has `materialized_views`.
        alert_channels (ApplyResultAlertChannels | Unset): The same for an `alert_channels` section.
        alert_rules (ApplyResultAlertRules | Unset): The same for an `alert_rules` section.
        groups (ApplyResultGroups | Unset): The same for a `groups` section.
        grants (ApplyResultGrants | Unset): The same for a `grants` section, each grant named `SELECT ON
            lake.sales.orders TO GROUP analysts`.
        row_filters (ApplyResultRowFilters | Unset): The same for a `row_filters` section, each named by its table.
        column_masks (ApplyResultColumnMasks | Unset): The same for a `column_masks` section, each named
            `catalog.schema.table.column`.
    """

    created: list[str]
    updated: list[str]
    deleted: list[str]
    unchanged: list[str]
    dry_run: bool
    jobs: ApplyResultJobs | Unset = UNSET
    schedules: ApplyResultSchedules | Unset = UNSET
    materialized_views: ApplyResultMaterializedViews | Unset = UNSET
    alert_channels: ApplyResultAlertChannels | Unset = UNSET
    alert_rules: ApplyResultAlertRules | Unset = UNSET
    groups: ApplyResultGroups | Unset = UNSET
    grants: ApplyResultGrants | Unset = UNSET
    row_filters: ApplyResultRowFilters | Unset = UNSET
    column_masks: ApplyResultColumnMasks | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created = self.created

        updated = self.updated

        deleted = self.deleted

        unchanged = self.unchanged

        dry_run = self.dry_run

        jobs: dict[str, Any] | Unset = UNSET
        if not isinstance(self.jobs, Unset):
            jobs = self.jobs.to_dict()

        schedules: dict[str, Any] | Unset = UNSET
        if not isinstance(self.schedules, Unset):
            schedules = self.schedules.to_dict()

        materialized_views: dict[str, Any] | Unset = UNSET
        if not isinstance(self.materialized_views, Unset):
            materialized_views = self.materialized_views.to_dict()

        alert_channels: dict[str, Any] | Unset = UNSET
        if not isinstance(self.alert_channels, Unset):
            alert_channels = self.alert_channels.to_dict()

        alert_rules: dict[str, Any] | Unset = UNSET
        if not isinstance(self.alert_rules, Unset):
            alert_rules = self.alert_rules.to_dict()

        groups: dict[str, Any] | Unset = UNSET
        if not isinstance(self.groups, Unset):
            groups = self.groups.to_dict()

        grants: dict[str, Any] | Unset = UNSET
        if not isinstance(self.grants, Unset):
            grants = self.grants.to_dict()

        row_filters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.row_filters, Unset):
            row_filters = self.row_filters.to_dict()

        column_masks: dict[str, Any] | Unset = UNSET
        if not isinstance(self.column_masks, Unset):
            column_masks = self.column_masks.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created": created,
                "updated": updated,
                "deleted": deleted,
                "unchanged": unchanged,
                "dry_run": dry_run,
            }
        )
        if jobs is not UNSET:
            field_dict["jobs"] = jobs
        if schedules is not UNSET:
            field_dict["schedules"] = schedules
        if materialized_views is not UNSET:
            field_dict["materialized_views"] = materialized_views
        if alert_channels is not UNSET:
            field_dict["alert_channels"] = alert_channels
        if alert_rules is not UNSET:
            field_dict["alert_rules"] = alert_rules
        if groups is not UNSET:
            field_dict["groups"] = groups
        if grants is not UNSET:
            field_dict["grants"] = grants
        if row_filters is not UNSET:
            field_dict["row_filters"] = row_filters
        if column_masks is not UNSET:
            field_dict["column_masks"] = column_masks

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.apply_result_alert_channels import ApplyResultAlertChannels  # noqa: PLC0415
        from ..models.apply_result_alert_rules import ApplyResultAlertRules  # noqa: PLC0415
        from ..models.apply_result_column_masks import ApplyResultColumnMasks  # noqa: PLC0415
        from ..models.apply_result_grants import ApplyResultGrants  # noqa: PLC0415
        from ..models.apply_result_groups import ApplyResultGroups  # noqa: PLC0415
        from ..models.apply_result_jobs import ApplyResultJobs  # noqa: PLC0415
        from ..models.apply_result_materialized_views import (
            ApplyResultMaterializedViews,  # noqa: PLC0415
        )
        from ..models.apply_result_row_filters import ApplyResultRowFilters  # noqa: PLC0415
        from ..models.apply_result_schedules import ApplyResultSchedules  # noqa: PLC0415

        d = dict(src_dict)
        created = cast(list[str], d.pop("created"))

        updated = cast(list[str], d.pop("updated"))

        deleted = cast(list[str], d.pop("deleted"))

        unchanged = cast(list[str], d.pop("unchanged"))

        dry_run = d.pop("dry_run")

        _jobs = d.pop("jobs", UNSET)
        jobs: ApplyResultJobs | Unset
        if isinstance(_jobs, Unset):
            jobs = UNSET
        else:
            jobs = ApplyResultJobs.from_dict(_jobs)

        _schedules = d.pop("schedules", UNSET)
        schedules: ApplyResultSchedules | Unset
        if isinstance(_schedules, Unset):
            schedules = UNSET
        else:
            schedules = ApplyResultSchedules.from_dict(_schedules)

        _materialized_views = d.pop("materialized_views", UNSET)
        materialized_views: ApplyResultMaterializedViews | Unset
        if isinstance(_materialized_views, Unset):
            materialized_views = UNSET
        else:
            materialized_views = ApplyResultMaterializedViews.from_dict(_materialized_views)

        _alert_channels = d.pop("alert_channels", UNSET)
        alert_channels: ApplyResultAlertChannels | Unset
        if isinstance(_alert_channels, Unset):
            alert_channels = UNSET
        else:
            alert_channels = ApplyResultAlertChannels.from_dict(_alert_channels)

        _alert_rules = d.pop("alert_rules", UNSET)
        alert_rules: ApplyResultAlertRules | Unset
        if isinstance(_alert_rules, Unset):
            alert_rules = UNSET
        else:
            alert_rules = ApplyResultAlertRules.from_dict(_alert_rules)

        _groups = d.pop("groups", UNSET)
        groups: ApplyResultGroups | Unset
        if isinstance(_groups, Unset):
            groups = UNSET
        else:
            groups = ApplyResultGroups.from_dict(_groups)

        _grants = d.pop("grants", UNSET)
        grants: ApplyResultGrants | Unset
        if isinstance(_grants, Unset):
            grants = UNSET
        else:
            grants = ApplyResultGrants.from_dict(_grants)

        _row_filters = d.pop("row_filters", UNSET)
        row_filters: ApplyResultRowFilters | Unset
        if isinstance(_row_filters, Unset):
            row_filters = UNSET
        else:
            row_filters = ApplyResultRowFilters.from_dict(_row_filters)

        _column_masks = d.pop("column_masks", UNSET)
        column_masks: ApplyResultColumnMasks | Unset
        if isinstance(_column_masks, Unset):
            column_masks = UNSET
        else:
            column_masks = ApplyResultColumnMasks.from_dict(_column_masks)

        apply_result = cls(
            created=created,
            updated=updated,
            deleted=deleted,
            unchanged=unchanged,
            dry_run=dry_run,
            jobs=jobs,
            schedules=schedules,
            materialized_views=materialized_views,
            alert_channels=alert_channels,
            alert_rules=alert_rules,
            groups=groups,
            grants=grants,
            row_filters=row_filters,
            column_masks=column_masks,
        )

        apply_result.additional_properties = d
        return apply_result

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
