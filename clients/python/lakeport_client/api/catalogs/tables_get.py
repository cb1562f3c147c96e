from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.catalog_table import CatalogTable
from ...types import UNSET, Response, Unset


def _get_kwargs(
    team: str,
    name: str,
    database: str,
    table: str,
    *,
    timeout: float | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["timeout"] = timeout

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/teams/{team}/catalogs/{name}/databases/{database}/tables/{table}/".format(
            team=quote(str(team), safe=""),
            name=quote(str(name), safe=""),
            database=quote(str(database), safe=""),
            table=quote(str(table), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | CatalogTable | None:
    if response.status_code == 200:
        response_200 = CatalogTable.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ApiError.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ApiError.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ApiError.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ApiError.from_dict(response.json())

        return response_404

    if response.status_code == 502:
        response_502 = ApiError.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = ApiError.from_dict(response.json())

        return response_503

    if response.status_code == 504:
        response_504 = ApiError.from_dict(response.json())

        return response_504

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ApiError | CatalogTable]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    team: str,
    name: str,
    database: str,
    table: str,
    *,
    client: AuthenticatedClient,
    timeout: float | Unset = UNSET,
) -> Response[ApiError | CatalogTable]:
    """Columns and partitioning of one table (Delta: also version and row count).

    Args:
        team (str):
        name (str):
        database (str):
        table (str):
        timeout (float | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | CatalogTable]
    """

    kwargs = _get_kwargs(
        team=team,
        name=name,
        database=database,
        table=table,
        timeout=timeout,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    name: str,
    database: str,
    table: str,
    *,
    client: AuthenticatedClient,
    timeout: float | Unset = UNSET,
) -> ApiError | CatalogTable | None:
    """Columns and partitioning of one table (Delta: also version and row count).

    Args:
        team (str):
        name (str):
        database (str):
        table (str):
        timeout (float | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | CatalogTable
    """

    return sync_detailed(
        team=team,
        name=name,
        database=database,
        table=table,
        client=client,
        timeout=timeout,
    ).parsed


async def asyncio_detailed(
    team: str,
    name: str,
    database: str,
    table: str,
    *,
    client: AuthenticatedClient,
    timeout: float | Unset = UNSET,
) -> Response[ApiError | CatalogTable]:
    """Columns and partitioning of one table (Delta: also version and row count).

    Args:
        team (str):
        name (str):
        database (str):
        table (str):
        timeout (float | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | CatalogTable]
    """

    kwargs = _get_kwargs(
        team=team,
        name=name,
        database=database,
        table=table,
        timeout=timeout,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    name: str,
    database: str,
    table: str,
    *,
    client: AuthenticatedClient,
    timeout: float | Unset = UNSET,
) -> ApiError | CatalogTable | None:
    """Columns and partitioning of one table (Delta: also version and row count).

    Args:
        team (str):
        name (str):
        database (str):
        table (str):
        timeout (float | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | CatalogTable
    """

    return (
        await asyncio_detailed(
            team=team,
            name=name,
            database=database,
            table=table,
            client=client,
            timeout=timeout,
        )
    ).parsed
