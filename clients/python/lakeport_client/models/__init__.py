"""Contains all the data models used in inputs/outputs"""

from .access_group import AccessGroup
from .action_enum import ActionEnum
from .alert_channel_kind_enum import AlertChannelKindEnum
from .alert_event_enum import AlertEventEnum
from .api_error import ApiError
from .api_error_detail import ApiErrorDetail
from .apply_input_request import ApplyInputRequest
from .apply_result import ApplyResult
from .apply_result_alert_channels import ApplyResultAlertChannels
from .apply_result_alert_rules import ApplyResultAlertRules
from .apply_result_column_masks import ApplyResultColumnMasks
from .apply_result_grants import ApplyResultGrants
from .apply_result_groups import ApplyResultGroups
from .apply_result_jobs import ApplyResultJobs
from .apply_result_materialized_views import ApplyResultMaterializedViews
from .apply_result_row_filters import ApplyResultRowFilters
from .apply_result_schedules import ApplyResultSchedules
from .catalog_change_output import CatalogChangeOutput
from .catalog_change_output_changes import CatalogChangeOutputChanges
from .catalog_config_test_connection_api_input_request import (
    CatalogConfigTestConnectionApiInputRequest,
)
from .catalog_databases import CatalogDatabases
from .catalog_input_request import CatalogInputRequest
from .catalog_output import CatalogOutput
from .catalog_output_configuration import CatalogOutputConfiguration
from .catalog_table import CatalogTable
from .catalog_table_properties import CatalogTableProperties
from .catalog_table_sample_api_input_request import CatalogTableSampleApiInputRequest
from .catalog_tables import CatalogTables
from .catalog_type_enum import CatalogTypeEnum
from .catalog_type_output import CatalogTypeOutput
from .catalogs_list_catalog_type import CatalogsListCatalogType
from .catchup_enum import CatchupEnum
from .channel_input_request import ChannelInputRequest
from .channel_output import ChannelOutput
from .checked_enum import CheckedEnum
from .column_lineage_output import ColumnLineageOutput
from .column_mask_list_api_input_request import ColumnMaskListApiInputRequest
from .column_mask_output import ColumnMaskOutput
from .column_step_output import ColumnStepOutput
from .concurrency_enum import ConcurrencyEnum
from .connection_result import ConnectionResult
from .csrf import Csrf
from .dataset_detail_output import DatasetDetailOutput
from .dataset_output import DatasetOutput
from .delivery_output import DeliveryOutput
from .desired_enum import DesiredEnum
from .direction_enum import DirectionEnum
from .engine_enum import EngineEnum
from .engine_warm_output import EngineWarmOutput
from .fire_output import FireOutput
from .grant_list_api_input_request import GrantListApiInputRequest
from .grant_output import GrantOutput
from .graph_output import GraphOutput
from .group_list_api_input_request import GroupListApiInputRequest
from .group_member_list_api_input_request import GroupMemberListApiInputRequest
from .impact_output import ImpactOutput
from .job_edge_dataset_output import JobEdgeDatasetOutput
from .job_input_request import JobInputRequest
from .job_input_request_parameters import JobInputRequestParameters
from .job_input_request_spark_conf import JobInputRequestSparkConf
from .job_lineage_output import JobLineageOutput
from .job_output import JobOutput
from .job_output_parameters import JobOutputParameters
from .job_output_spark_conf import JobOutputSparkConf
from .kind_enum import KindEnum
from .lineage_edge_output import LineageEdgeOutput
from .lineage_job_output import LineageJobOutput
from .live_preview import LivePreview
from .live_preview_input_request import LivePreviewInputRequest
from .live_preview_status_enum import LivePreviewStatusEnum
from .login_api_input_request import LoginApiInputRequest
from .materialized_view import MaterializedView
from .materialized_view_sources import MaterializedViewSources
from .me import Me
from .member_list_api_input_request import MemberListApiInputRequest
from .member_output import MemberOutput
from .operation_enum import OperationEnum
from .paginated_access_group_list import PaginatedAccessGroupList
from .paginated_catalog_change_output_list import PaginatedCatalogChangeOutputList
from .paginated_catalog_output_list import PaginatedCatalogOutputList
from .paginated_catalog_type_output_list import PaginatedCatalogTypeOutputList
from .paginated_channel_output_list import PaginatedChannelOutputList
from .paginated_column_mask_output_list import PaginatedColumnMaskOutputList
from .paginated_grant_output_list import PaginatedGrantOutputList
from .paginated_job_output_list import PaginatedJobOutputList
from .paginated_materialized_view_list import PaginatedMaterializedViewList
from .paginated_member_output_list import PaginatedMemberOutputList
from .paginated_row_filter_output_list import PaginatedRowFilterOutputList
from .paginated_rule_output_list import PaginatedRuleOutputList
from .paginated_run_summary_output_list import PaginatedRunSummaryOutputList
from .paginated_schedule_output_list import PaginatedScheduleOutputList
from .paginated_stream_audit_output_list import PaginatedStreamAuditOutputList
from .paginated_team_output_list import PaginatedTeamOutputList
from .paginated_token_output_list import PaginatedTokenOutputList
from .parameter_declaration_output import ParameterDeclarationOutput
from .parameter_value_output import ParameterValueOutput
from .patched_catalog_input_request import PatchedCatalogInputRequest
from .patched_channel_input_request import PatchedChannelInputRequest
from .patched_column_mask_detail_api_input_request import (
    PatchedColumnMaskDetailApiInputRequest,
)
from .patched_group_detail_api_input_request import PatchedGroupDetailApiInputRequest
from .patched_job_input_request import PatchedJobInputRequest
from .patched_job_input_request_parameters import PatchedJobInputRequestParameters
from .patched_job_input_request_spark_conf import PatchedJobInputRequestSparkConf
from .patched_member_detail_api_input_request import PatchedMemberDetailApiInputRequest
from .patched_row_filter_detail_api_input_request import (
    PatchedRowFilterDetailApiInputRequest,
)
from .patched_rule_input_request import PatchedRuleInputRequest
from .patched_schedule_input_request import PatchedScheduleInputRequest
from .patched_schedule_input_request_parameters import (
    PatchedScheduleInputRequestParameters,
)
from .preview_error_output import PreviewErrorOutput
from .preview_input_request import PreviewInputRequest
from .preview_input_request_parameters import PreviewInputRequestParameters
from .preview_output import PreviewOutput
from .preview_snapshot_input_request import PreviewSnapshotInputRequest
from .principal_type_enum import PrincipalTypeEnum
from .privilege_enum import PrivilegeEnum
from .reached_dataset_output import ReachedDatasetOutput
from .refresh_mode_enum import RefreshModeEnum
from .result_column_output import ResultColumnOutput
from .role_enum import RoleEnum
from .row_filter_list_api_input_request import RowFilterListApiInputRequest
from .row_filter_output import RowFilterOutput
from .rule_input_request import RuleInputRequest
from .rule_output import RuleOutput
from .run_edge_dataset_output import RunEdgeDatasetOutput
from .run_error_output import RunErrorOutput
from .run_input_request import RunInputRequest
from .run_input_request_parameters import RunInputRequestParameters
from .run_input_request_snapshot_type_0 import RunInputRequestSnapshotType0
from .run_lineage_output import RunLineageOutput
from .run_log_line_output import RunLogLineOutput
from .run_log_output import RunLogOutput
from .run_output import RunOutput
from .run_output_parameters import RunOutputParameters
from .run_output_progress import RunOutputProgress
from .run_output_spark_conf import RunOutputSparkConf
from .run_result_output import RunResultOutput
from .run_snapshot_output import RunSnapshotOutput
from .run_snapshot_output_versions import RunSnapshotOutputVersions
from .run_statement_output import RunStatementOutput
from .run_summary_output import RunSummaryOutput
from .run_summary_output_parameters import RunSummaryOutputParameters
from .run_summary_output_progress import RunSummaryOutputProgress
from .schedule_input_request import ScheduleInputRequest
from .schedule_input_request_parameters import ScheduleInputRequestParameters
from .schedule_output import ScheduleOutput
from .schedule_output_parameters import ScheduleOutputParameters
from .schema_enum import SchemaEnum
from .session import Session
from .source_freshness import SourceFreshness
from .sql_error_output import SqlErrorOutput
from .sql_preview_output import SqlPreviewOutput
from .statement_span_output import StatementSpanOutput
from .stream_audit_output import StreamAuditOutput
from .stream_metric_output import StreamMetricOutput
from .stream_metrics_output import StreamMetricsOutput
from .stream_reset_input_request import StreamResetInputRequest
from .stream_state_output import StreamStateOutput
from .stream_state_output_status_enum import StreamStateOutputStatusEnum
from .table_column_output import TableColumnOutput
from .table_maintenance_api_input_request import TableMaintenanceApiInputRequest
from .table_sample import TableSample
from .table_summary_output import TableSummaryOutput
from .team_list_api_input_request import TeamListApiInputRequest
from .team_output import TeamOutput
from .team_role_output import TeamRoleOutput
from .test_output import TestOutput
from .token_issued_output import TokenIssuedOutput
from .token_list_api_input_request import TokenListApiInputRequest
from .token_output import TokenOutput
from .validate_input_request import ValidateInputRequest
from .validate_input_request_parameters import ValidateInputRequestParameters
from .validation_output import ValidationOutput
from .validation_output_schema_item import ValidationOutputSchemaItem
from .view_freshness_output import ViewFreshnessOutput
from .view_source_freshness_output import ViewSourceFreshnessOutput

__all__ = (
    "AccessGroup",
    "ActionEnum",
    "AlertChannelKindEnum",
    "AlertEventEnum",
    "ApiError",
    "ApiErrorDetail",
    "ApplyInputRequest",
    "ApplyResult",
    "ApplyResultAlertChannels",
    "ApplyResultAlertRules",
    "ApplyResultColumnMasks",
    "ApplyResultGrants",
    "ApplyResultGroups",
    "ApplyResultJobs",
    "ApplyResultMaterializedViews",
    "ApplyResultRowFilters",
    "ApplyResultSchedules",
    "CatalogChangeOutput",
    "CatalogChangeOutputChanges",
    "CatalogConfigTestConnectionApiInputRequest",
    "CatalogDatabases",
    "CatalogInputRequest",
    "CatalogOutput",
    "CatalogOutputConfiguration",
    "CatalogsListCatalogType",
    "CatalogTable",
    "CatalogTableProperties",
    "CatalogTables",
    "CatalogTableSampleApiInputRequest",
    "CatalogTypeEnum",
    "CatalogTypeOutput",
    "CatchupEnum",
    "ChannelInputRequest",
    "ChannelOutput",
    "CheckedEnum",
    "ColumnLineageOutput",
    "ColumnMaskListApiInputRequest",
    "ColumnMaskOutput",
    "ColumnStepOutput",
    "ConcurrencyEnum",
    "ConnectionResult",
    "Csrf",
    "DatasetDetailOutput",
    "DatasetOutput",
    "DeliveryOutput",
    "DesiredEnum",
    "DirectionEnum",
    "EngineEnum",
    "EngineWarmOutput",
    "FireOutput",
    "GrantListApiInputRequest",
    "GrantOutput",
    "GraphOutput",
    "GroupListApiInputRequest",
    "GroupMemberListApiInputRequest",
    "ImpactOutput",
    "JobEdgeDatasetOutput",
    "JobInputRequest",
    "JobInputRequestParameters",
    "JobInputRequestSparkConf",
    "JobLineageOutput",
    "JobOutput",
    "JobOutputParameters",
    "JobOutputSparkConf",
    "KindEnum",
    "LineageEdgeOutput",
    "LineageJobOutput",
    "LivePreview",
    "LivePreviewInputRequest",
    "LivePreviewStatusEnum",
    "LoginApiInputRequest",
    "MaterializedView",
    "MaterializedViewSources",
    "Me",
    "MemberListApiInputRequest",
    "MemberOutput",
    "OperationEnum",
    "PaginatedAccessGroupList",
    "PaginatedCatalogChangeOutputList",
    "PaginatedCatalogOutputList",
    "PaginatedCatalogTypeOutputList",
    "PaginatedChannelOutputList",
    "PaginatedColumnMaskOutputList",
    "PaginatedGrantOutputList",
    "PaginatedJobOutputList",
    "PaginatedMaterializedViewList",
    "PaginatedMemberOutputList",
    "PaginatedRowFilterOutputList",
    "PaginatedRuleOutputList",
    "PaginatedRunSummaryOutputList",
    "PaginatedScheduleOutputList",
    "PaginatedStreamAuditOutputList",
    "PaginatedTeamOutputList",
    "PaginatedTokenOutputList",
    "ParameterDeclarationOutput",
    "ParameterValueOutput",
    "PatchedCatalogInputRequest",
    "PatchedChannelInputRequest",
    "PatchedColumnMaskDetailApiInputRequest",
    "PatchedGroupDetailApiInputRequest",
    "PatchedJobInputRequest",
    "PatchedJobInputRequestParameters",
    "PatchedJobInputRequestSparkConf",
    "PatchedMemberDetailApiInputRequest",
    "PatchedRowFilterDetailApiInputRequest",
    "PatchedRuleInputRequest",
    "PatchedScheduleInputRequest",
    "PatchedScheduleInputRequestParameters",
    "PreviewErrorOutput",
    "PreviewInputRequest",
    "PreviewInputRequestParameters",
    "PreviewOutput",
    "PreviewSnapshotInputRequest",
    "PrincipalTypeEnum",
    "PrivilegeEnum",
    "ReachedDatasetOutput",
    "RefreshModeEnum",
    "ResultColumnOutput",
    "RoleEnum",
    "RowFilterListApiInputRequest",
    "RowFilterOutput",
    "RuleInputRequest",
    "RuleOutput",
    "RunEdgeDatasetOutput",
    "RunErrorOutput",
    "RunInputRequest",
    "RunInputRequestParameters",
    "RunInputRequestSnapshotType0",
    "RunLineageOutput",
    "RunLogLineOutput",
    "RunLogOutput",
    "RunOutput",
    "RunOutputParameters",
    "RunOutputProgress",
    "RunOutputSparkConf",
    "RunResultOutput",
    "RunSnapshotOutput",
    "RunSnapshotOutputVersions",
    "RunStatementOutput",
    "RunSummaryOutput",
    "RunSummaryOutputParameters",
    "RunSummaryOutputProgress",
    "ScheduleInputRequest",
    "ScheduleInputRequestParameters",
    "ScheduleOutput",
    "ScheduleOutputParameters",
    "SchemaEnum",
    "Session",
    "SourceFreshness",
    "SqlErrorOutput",
    "SqlPreviewOutput",
    "StatementSpanOutput",
    "StreamAuditOutput",
    "StreamMetricOutput",
    "StreamMetricsOutput",
    "StreamResetInputRequest",
    "StreamStateOutput",
    "StreamStateOutputStatusEnum",
    "TableColumnOutput",
    "TableMaintenanceApiInputRequest",
    "TableSample",
    "TableSummaryOutput",
    "TeamListApiInputRequest",
    "TeamOutput",
    "TeamRoleOutput",
    "TestOutput",
    "TokenIssuedOutput",
    "TokenListApiInputRequest",
    "TokenOutput",
    "ValidateInputRequest",
    "ValidateInputRequestParameters",
    "ValidationOutput",
    "ValidationOutputSchemaItem",
    "ViewFreshnessOutput",
    "ViewSourceFreshnessOutput",
)
