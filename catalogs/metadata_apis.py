"""Test-connection and metadata-browsing endpoints: thin views over catalogs/metadata.py."""

from __future__ import annotations

import dataclasses
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogs.metadata import (
    MAX_SAMPLE_ROWS,
    catalog_config_test_connection,
    catalog_databases_list,
    catalog_table_describe,
    catalog_table_sample,
    catalog_tables_list,
    catalog_test_connection,
    resolve_timeout,
)
from catalogs.selectors import catalog_browsable, catalog_get
from catalogs.types.base import MetadataError
from core.api.outputs import ResultColumnOutput, ResultRows
from core.api.validation import validated
from core.errors import Forbidden
from grants.selectors import table_protected
from lakeport_engine.access import BROWSE, SELECT
from teams.models import Role
from teams.permissions import TeamScopedMixin

_STATUS_CODES = {404: "not_found", 409: "refused", 501: "not_implemented", 502: "bad_gateway", 504: "gateway_timeout"}

TIMEOUT_PARAMETER = OpenApiParameter(
    "timeout", float, description="Seconds before the call is abandoned, 1 to 30 (default LAKEPORT_CONNECT_TIMEOUT)."
)


# ---- output: each response body is one of these (and documented by it) -------------------------------------
# No docstrings on them: a docstring would become the schema's description. Meta.ref_name keeps the component
# names the API has had since 1.0.0 (clients import them by those names).
class ConnectionResultOutput(serializers.Serializer):
    ok = serializers.BooleanField()
    message = serializers.CharField()
    elapsed_ms = serializers.IntegerField()

    class Meta:
        ref_name = "ConnectionResult"


class CatalogDatabasesOutput(serializers.Serializer):
    catalog = serializers.CharField()
    databases = serializers.ListField(child=serializers.CharField())

    class Meta:
        ref_name = "CatalogDatabases"


class TableSummaryOutput(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField(help_text="table | view | external | delta | stream …")


class CatalogTablesOutput(serializers.Serializer):
    catalog = serializers.CharField()
    database = serializers.CharField()
    tables = TableSummaryOutput(many=True)

    class Meta:
        ref_name = "CatalogTables"


class TableColumnOutput(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.CharField()
    nullable = serializers.BooleanField()
    comment = serializers.CharField(allow_null=True)


class CatalogTableOutput(serializers.Serializer):
    catalog = serializers.CharField()
    database = serializers.CharField()
    name = serializers.CharField()
    kind = serializers.CharField()
    columns = TableColumnOutput(many=True)
    partition_columns = serializers.ListField(child=serializers.CharField())
    location = serializers.CharField(allow_null=True)
    version = serializers.IntegerField(allow_null=True)
    row_count = serializers.IntegerField(allow_null=True)
    properties = serializers.DictField(child=serializers.CharField())

    class Meta:
        ref_name = "CatalogTable"


# A TableSample (no docstring: it would become the schema's description).
class TableSampleOutput(serializers.Serializer):
    columns = ResultColumnOutput(many=True)
    rows = ResultRows()
    schema = serializers.ChoiceField(choices=["declared", "inferred"])

    class Meta:
        ref_name = "TableSample"  # the schema's name for it since API 1.1.0 (clients import it by that name)


class MetadataUnavailable(exceptions.APIException):
    """A MetadataError as an HTTP answer: 404 unknown object, 502 system failed, 504 timed out."""

    def __init__(self, error: MetadataError) -> None:
        self.status_code = error.status
        super().__init__(str(error), code=_STATUS_CODES.get(error.status, "bad_gateway"))


def _metadata_call(call: Any) -> Any:
    try:
        return call()
    except MetadataError as exc:
        raise MetadataUnavailable(exc) from None


class CatalogConfigTestConnectionApi(TeamScopedMixin, APIView):
    """Test an unsaved configuration (team admins: it may point anywhere the server can reach)."""

    write_role = Role.ADMIN

    class InputSerializer(serializers.Serializer):
        catalog_type = serializers.CharField(max_length=16)
        configuration = serializers.JSONField()

    @extend_schema(request=InputSerializer, parameters=[TIMEOUT_PARAMETER], responses=ConnectionResultOutput)
    def post(self, request: Request, team: str) -> Response:
        timeout = resolve_timeout(request.query_params.get("timeout"))
        data = validated(self.InputSerializer, request.data)
        result = catalog_config_test_connection(
            team=self.team, catalog_type=data["catalog_type"], configuration=data["configuration"], timeout=timeout
        )
        return Response(ConnectionResultOutput(result).data)


class CatalogTestConnectionApi(TeamScopedMixin, APIView):
    """Test a saved catalog with its stored credentials (developers and admins)."""

    write_role = Role.DEVELOPER

    @extend_schema(request=None, parameters=[TIMEOUT_PARAMETER], responses=ConnectionResultOutput)
    def post(self, request: Request, team: str, name: str) -> Response:
        catalog = catalog_get(team=self.team, name=name)
        timeout = resolve_timeout(request.query_params.get("timeout"))
        return Response(ConnectionResultOutput(catalog_test_connection(catalog=catalog, timeout=timeout)).data)


class CatalogDatabaseListApi(TeamScopedMixin, APIView):
    """Databases of a catalog (PostgreSQL: the schemas of its default database)."""

    read_role = Role.VIEWER

    @extend_schema(parameters=[TIMEOUT_PARAMETER], responses=CatalogDatabasesOutput)
    def get(self, request: Request, team: str, name: str) -> Response:
        catalog, policy = catalog_browsable(team=self.team, name=name, user=request.user)
        timeout = resolve_timeout(request.query_params.get("timeout"))
        databases = [d for d in _metadata_call(lambda: catalog_databases_list(catalog=catalog, timeout=timeout))
                     if policy.allows(BROWSE, (name, d))]  # what the caller may not browse is not listed
        return Response(CatalogDatabasesOutput({"catalog": catalog.catalog_name, "databases": databases}).data)


class CatalogTableListApi(TeamScopedMixin, APIView):
    """Tables of one database with their kind; `?search=` keeps names containing the text."""

    read_role = Role.VIEWER

    @extend_schema(
        parameters=[TIMEOUT_PARAMETER, OpenApiParameter("search", str, description="Substring of the table name.")],
        responses=CatalogTablesOutput,
    )
    def get(self, request: Request, team: str, name: str, database: str) -> Response:
        catalog, policy = catalog_browsable(team=self.team, name=name, user=request.user, database=database)
        timeout = resolve_timeout(request.query_params.get("timeout"))
        search = request.query_params.get("search", "")[:128]
        tables = [t for t in _metadata_call(
            lambda: catalog_tables_list(catalog=catalog, database=database, search=search, timeout=timeout)
        ) if policy.allows(BROWSE, (name, database, t.name))]
        return Response(CatalogTablesOutput({"catalog": catalog.catalog_name, "database": database, "tables": tables}).data)


class CatalogTableDetailApi(TeamScopedMixin, APIView):
    """Columns and partitioning of one table (Delta: also version and row count)."""

    read_role = Role.VIEWER

    @extend_schema(parameters=[TIMEOUT_PARAMETER], responses=CatalogTableOutput)
    def get(self, request: Request, team: str, name: str, database: str, table: str) -> Response:
        catalog, _ = catalog_browsable(team=self.team, name=name, user=request.user, database=database, table=table)
        timeout = resolve_timeout(request.query_params.get("timeout"))
        detail = _metadata_call(
            lambda: catalog_table_describe(catalog=catalog, database=database, table=table, timeout=timeout)
        )
        if table_protected(team=self.team, table=(name, database, table))[0]:
            detail = dataclasses.replace(detail, row_count=None)  # the whole table's count would tell how many rows its row filter keeps out
        return Response(CatalogTableOutput({"catalog": catalog.catalog_name, **vars(detail)}).data)


class CatalogTableSampleApi(TeamScopedMixin, APIView):
    """The newest records of a stream table (a read: viewers may sample)."""

    read_role = Role.VIEWER
    write_role = Role.VIEWER

    class InputSerializer(serializers.Serializer):
        limit = serializers.IntegerField(required=False, default=20, min_value=1, max_value=MAX_SAMPLE_ROWS)

    @extend_schema(
        operation_id="tables_sample", parameters=[TIMEOUT_PARAMETER], request=InputSerializer,
        responses=TableSampleOutput,
    )
    def post(self, request: Request, team: str, name: str, database: str, table: str) -> Response:
        catalog, policy = catalog_browsable(team=self.team, name=name, user=request.user, database=database,
                                            table=table)
        if not policy.allows(SELECT, (name, database, table)):
            raise Forbidden(f"Sampling table '{name}.{database}.{table}' needs SELECT on it.")
        if any(table_protected(team=self.team, table=(name, database, table))):
            raise Forbidden(f"Table '{name}.{database}.{table}' has a row filter or column masks, which a sample read "
                            "without Spark cannot apply; preview a query on it instead (rule: row-policy).")
        timeout = resolve_timeout(request.query_params.get("timeout"))
        data = validated(self.InputSerializer, request.data)
        sample = _metadata_call(lambda: catalog_table_sample(catalog=catalog, database=database, table=table,
                                                             limit=data["limit"], timeout=timeout))
        return Response(TableSampleOutput(sample).data)
