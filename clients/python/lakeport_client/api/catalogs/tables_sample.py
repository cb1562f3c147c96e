from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.catalog_table_sample_api_input_request import (
    CatalogTableSampleApiInputRequest,
)
from ...models.table_sample import TableSample
from ...types import UNSET, Response, Unset


def _get_kwargs(
    team: str,
    name: str,
    database: str,
    table: str,
    *,
    body: CatalogTableSampleApiInputRequest | Unset = UNSET,
    timeout: float | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["timeout"] = timeout

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/teams/{team}/catalogs/{name}/databases/{database}/tables/{table}/sample/".format(
            team=quote(str(team), safe=""),
            name=quote(str(name), safe=""),
            database=quote(str(database), safe=""),
            table=quote(str(table), safe=""),
        ),
        "params": params,
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ApiError | TableSample | None:
    if response.status_code == 200:
        response_200 = TableSample.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ApiError.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ApiError.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ApiError.from_dict(response.json())

        return response_415

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
) -> Response[ApiError | TableSample]:
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
    body: CatalogTableSampleApiInputRequest | Unset = UNSET,
    timeout: float | Unset = UNSET,
) -> Response[ApiError | TableSample]:
    """The newest records of a stream table (a read: viewers may sample).

    Args:
        team (str):
        name (str):
        database (str):
        table (str):
        timeout (float | Unset):
        body (CatalogTableSampleApiInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | TableSample]
    """

    kwargs = _get_kwargs(
        team=team,
        name=name,
        database=database,
        table=table,
        body=body,
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
    body: CatalogTableSampleApiInputRequest | Unset = UNSET,
    timeout: float | Unset = UNSET,
) -> ApiError | TableSample | None:
    """The newest records of a stream table (a read: viewers may sample).

    Args:
        team (str):
        name (str):
        database (str):
        table (str):
        timeout (float | Unset):
        body (CatalogTableSampleApiInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | TableSample
    """

    return sync_detailed(
        team=team,
        name=name,
        database=database,
        table=table,
        client=client,
        body=body,
        timeout=timeout,
    ).parsed


async def asyncio_detailed(
    team: str,
    name: str,
    database: str,
    table: str,
    *,
    client: AuthenticatedClient,
    body: CatalogTableSampleApiInputRequest | Unset = UNSET,
    timeout: float | Unset = UNSET,
) -> Response[ApiError | TableSample]:
    """The newest records of a stream table (a read: viewers may sample).

    Args:
        team (str):
        name (str):
        database (str):
        table (str):
        timeout (float | Unset):
        body (CatalogTableSampleApiInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | TableSample]
    """

    kwargs = _get_kwargs(
        team=team,
        name=name,
        database=database,
        table=table,
        body=body,
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
    body: CatalogTableSampleApiInputRequest | Unset = UNSET,
    timeout: float | Unset = UNSET,
) -> ApiError | TableSample | None:
    """The newest records of a stream table (a read: viewers may sample).

    Args:
        team (str):
        name (str):
        database (str):
        table (str):
        timeout (float | Unset):
        body (CatalogTableSampleApiInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | TableSample
    """

    return (
        await asyncio_detailed(
            team=team,
            name=name,
            database=database,
            table=table,
            client=client,
            body=body,
            timeout=timeout,
        )
    ).parsed
