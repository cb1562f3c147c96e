"""Contains all the data models used in inputs/outputs"""

from .action_enum import ActionEnum
from .api_error import ApiError
from .api_error_detail import ApiErrorDetail
from .apply_input_request import ApplyInputRequest
from .apply_result import ApplyResult
from .apply_result_jobs import ApplyResultJobs
from .apply_result_schedules import ApplyResultSchedules
from .catalog_change_output import CatalogChangeOutput
from .catalog_config_test_connection_api_input_request import (
    CatalogConfigTestConnectionApiInputRequest,
)
from .catalog_databases import CatalogDatabases
from .catalog_input_request import CatalogInputRequest
from .catalog_output import CatalogOutput
from .catalog_table import CatalogTable
from .catalog_table_columns_item import CatalogTableColumnsItem
from .catalog_table_properties import CatalogTableProperties
from .catalog_table_sample_api_input_request import CatalogTableSampleApiInputRequest
from .catalog_tables import CatalogTables
from .catalog_tables_tables_item import CatalogTablesTablesItem
from .catalog_type_enum import CatalogTypeEnum
from .catalog_type_output import CatalogTypeOutput
from .catalogs_list_catalog_type import CatalogsListCatalogType
from .catchup_enum import CatchupEnum
from .column_lineage_output import ColumnLineageOutput
from .column_lineage_output_dataset import ColumnLineageOutputDataset
from .column_lineage_output_edges_item import ColumnLineageOutputEdgesItem
from .concurrency_enum import ConcurrencyEnum
from .connection_result import ConnectionResult
from .csrf import Csrf
from .dataset_detail_output import DatasetDetailOutput
from .dataset_detail_output_readers_item import DatasetDetailOutputReadersItem
from .dataset_detail_output_writers_item import DatasetDetailOutputWritersItem
from .dataset_output import DatasetOutput
from .desired_enum import DesiredEnum
from .engine_enum import EngineEnum
from .fire_output import FireOutput
from .graph_output import GraphOutput
from .graph_output_datasets_item import GraphOutputDatasetsItem
from .graph_output_edges_item import GraphOutputEdgesItem
from .graph_output_jobs_item import GraphOutputJobsItem
from .impact_output import ImpactOutput
from .impact_output_dataset import ImpactOutputDataset
from .impact_output_datasets_item import ImpactOutputDatasetsItem
from .impact_output_jobs_item import ImpactOutputJobsItem
from .job_input_request import JobInputRequest
from .job_input_request_parameters import JobInputRequestParameters
from .job_input_request_spark_conf import JobInputRequestSparkConf
from .job_lineage_output import JobLineageOutput
from .job_lineage_output_inputs_item import JobLineageOutputInputsItem
from .job_lineage_output_job import JobLineageOutputJob
from .job_lineage_output_outputs_item import JobLineageOutputOutputsItem
from .job_output import JobOutput
from .job_output_parameters import JobOutputParameters
from .job_output_parameters_additional_property import (
    JobOutputParametersAdditionalProperty,
)
from .job_output_spark_conf import JobOutputSparkConf
from .kind_enum import KindEnum
from .live_preview import LivePreview
from .live_preview_columns_item import LivePreviewColumnsItem
from .live_preview_error_type_0 import LivePreviewErrorType0
from .live_preview_input_request import LivePreviewInputRequest
from .live_preview_status_enum import LivePreviewStatusEnum
from .login_api_input_request import LoginApiInputRequest
from .me import Me
from .member_list_api_input_request import MemberListApiInputRequest
from .member_output import MemberOutput
from .paginated_catalog_change_output_list import PaginatedCatalogChangeOutputList
from .paginated_catalog_output_list import PaginatedCatalogOutputList
from .paginated_catalog_type_output_list import PaginatedCatalogTypeOutputList
from .paginated_job_output_list import PaginatedJobOutputList
from .paginated_member_output_list import PaginatedMemberOutputList
from .paginated_run_summary_output_list import PaginatedRunSummaryOutputList
from .paginated_schedule_output_list import PaginatedScheduleOutputList
from .paginated_team_output_list import PaginatedTeamOutputList
from .paginated_token_output_list import PaginatedTokenOutputList
from .patched_catalog_input_request import PatchedCatalogInputRequest
from .patched_job_input_request import PatchedJobInputRequest
from .patched_job_input_request_parameters import PatchedJobInputRequestParameters
from .patched_job_input_request_spark_conf import PatchedJobInputRequestSparkConf
from .patched_member_detail_api_input_request import PatchedMemberDetailApiInputRequest
from .patched_schedule_input_request import PatchedScheduleInputRequest
from .patched_schedule_input_request_parameters import (
    PatchedScheduleInputRequestParameters,
)
from .preview_input_request import PreviewInputRequest
from .preview_input_request_parameters import PreviewInputRequestParameters
from .preview_output import PreviewOutput
from .preview_output_error_type_0 import PreviewOutputErrorType0
from .role_enum import RoleEnum
from .run_input_request import RunInputRequest
from .run_input_request_parameters import RunInputRequestParameters
from .run_input_request_snapshot_type_0 import RunInputRequestSnapshotType0
from .run_lineage_output import RunLineageOutput
from .run_lineage_output_inputs_item import RunLineageOutputInputsItem
from .run_lineage_output_outputs_item import RunLineageOutputOutputsItem
from .run_lineage_output_snapshot_type_0 import RunLineageOutputSnapshotType0
from .run_log_output import RunLogOutput
from .run_log_output_lines_item import RunLogOutputLinesItem
from .run_output import RunOutput
from .run_output_error_type_0 import RunOutputErrorType0
from .run_output_parameters import RunOutputParameters
from .run_output_parameters_additional_property import (
    RunOutputParametersAdditionalProperty,
)
from .run_output_progress import RunOutputProgress
from .run_output_spark_conf import RunOutputSparkConf
from .run_output_statements_item import RunOutputStatementsItem
from .run_result_output import RunResultOutput
from .run_result_output_columns_item import RunResultOutputColumnsItem
from .run_summary_output import RunSummaryOutput
from .run_summary_output_error_type_0 import RunSummaryOutputErrorType0
from .run_summary_output_parameters import RunSummaryOutputParameters
from .run_summary_output_parameters_additional_property import (
    RunSummaryOutputParametersAdditionalProperty,
)
from .run_summary_output_progress import RunSummaryOutputProgress
from .schedule_input_request import ScheduleInputRequest
from .schedule_input_request_parameters import ScheduleInputRequestParameters
from .schedule_output import ScheduleOutput
from .schedule_output_parameters import ScheduleOutputParameters
from .schema_enum import SchemaEnum
from .session import Session
from .session_user_type_0 import SessionUserType0
from .stream_metric_output import StreamMetricOutput
from .stream_metrics_output import StreamMetricsOutput
from .stream_reset_input_request import StreamResetInputRequest
from .stream_state_output import StreamStateOutput
from .stream_state_output_status_enum import StreamStateOutputStatusEnum
from .table_sample import TableSample
from .table_sample_columns_item import TableSampleColumnsItem
from .team_list_api_input_request import TeamListApiInputRequest
from .team_output import TeamOutput
from .token_issued_output import TokenIssuedOutput
from .token_list_api_input_request import TokenListApiInputRequest
from .token_output import TokenOutput
from .validate_input_request import ValidateInputRequest
from .validate_input_request_parameters import ValidateInputRequestParameters

__all__ = (
    "ActionEnum",
    "ApiError",
    "ApiErrorDetail",
    "ApplyInputRequest",
    "ApplyResult",
    "ApplyResultJobs",
    "ApplyResultSchedules",
    "CatalogChangeOutput",
    "CatalogConfigTestConnectionApiInputRequest",
    "CatalogDatabases",
    "CatalogInputRequest",
    "CatalogOutput",
    "CatalogsListCatalogType",
    "CatalogTable",
    "CatalogTableColumnsItem",
    "CatalogTableProperties",
    "CatalogTables",
    "CatalogTableSampleApiInputRequest",
    "CatalogTablesTablesItem",
    "CatalogTypeEnum",
    "CatalogTypeOutput",
    "CatchupEnum",
    "ColumnLineageOutput",
    "ColumnLineageOutputDataset",
    "ColumnLineageOutputEdgesItem",
    "ConcurrencyEnum",
    "ConnectionResult",
    "Csrf",
    "DatasetDetailOutput",
    "DatasetDetailOutputReadersItem",
    "DatasetDetailOutputWritersItem",
    "DatasetOutput",
    "DesiredEnum",
    "EngineEnum",
    "FireOutput",
    "GraphOutput",
    "GraphOutputDatasetsItem",
    "GraphOutputEdgesItem",
    "GraphOutputJobsItem",
    "ImpactOutput",
    "ImpactOutputDataset",
    "ImpactOutputDatasetsItem",
    "ImpactOutputJobsItem",
    "JobInputRequest",
    "JobInputRequestParameters",
    "JobInputRequestSparkConf",
    "JobLineageOutput",
    "JobLineageOutputInputsItem",
    "JobLineageOutputJob",
    "JobLineageOutputOutputsItem",
    "JobOutput",
    "JobOutputParameters",
    "JobOutputParametersAdditionalProperty",
    "JobOutputSparkConf",
    "KindEnum",
    "LivePreview",
    "LivePreviewColumnsItem",
    "LivePreviewErrorType0",
    "LivePreviewInputRequest",
    "LivePreviewStatusEnum",
    "LoginApiInputRequest",
    "Me",
    "MemberListApiInputRequest",
    "MemberOutput",
    "PaginatedCatalogChangeOutputList",
    "PaginatedCatalogOutputList",
    "PaginatedCatalogTypeOutputList",
    "PaginatedJobOutputList",
    "PaginatedMemberOutputList",
    "PaginatedRunSummaryOutputList",
    "PaginatedScheduleOutputList",
    "PaginatedTeamOutputList",
    "PaginatedTokenOutputList",
    "PatchedCatalogInputRequest",
    "PatchedJobInputRequest",
    "PatchedJobInputRequestParameters",
    "PatchedJobInputRequestSparkConf",
    "PatchedMemberDetailApiInputRequest",
    "PatchedScheduleInputRequest",
    "PatchedScheduleInputRequestParameters",
    "PreviewInputRequest",
    "PreviewInputRequestParameters",
    "PreviewOutput",
    "PreviewOutputErrorType0",
    "RoleEnum",
    "RunInputRequest",
    "RunInputRequestParameters",
    "RunInputRequestSnapshotType0",
    "RunLineageOutput",
    "RunLineageOutputInputsItem",
    "RunLineageOutputOutputsItem",
    "RunLineageOutputSnapshotType0",
    "RunLogOutput",
    "RunLogOutputLinesItem",
    "RunOutput",
    "RunOutputErrorType0",
    "RunOutputParameters",
    "RunOutputParametersAdditionalProperty",
    "RunOutputProgress",
    "RunOutputSparkConf",
    "RunOutputStatementsItem",
    "RunResultOutput",
    "RunResultOutputColumnsItem",
    "RunSummaryOutput",
    "RunSummaryOutputErrorType0",
    "RunSummaryOutputParameters",
    "RunSummaryOutputParametersAdditionalProperty",
    "RunSummaryOutputProgress",
    "ScheduleInputRequest",
    "ScheduleInputRequestParameters",
    "ScheduleOutput",
    "ScheduleOutputParameters",
    "SchemaEnum",
    "Session",
    "SessionUserType0",
    "StreamMetricOutput",
    "StreamMetricsOutput",
    "StreamResetInputRequest",
    "StreamStateOutput",
    "StreamStateOutputStatusEnum",
    "TableSample",
    "TableSampleColumnsItem",
    "TeamListApiInputRequest",
    "TeamOutput",
    "TokenIssuedOutput",
    "TokenListApiInputRequest",
    "TokenOutput",
    "ValidateInputRequest",
    "ValidateInputRequestParameters",
)
