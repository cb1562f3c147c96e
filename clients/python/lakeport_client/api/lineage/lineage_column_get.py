from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.column_lineage_output import ColumnLineageOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    team: str,
    dataset_id: int,
    column: str,
    *,
    depth: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["depth"] = depth

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/teams/{team}/lineage/datasets/{dataset_id}/columns/{column}/".format(
            team=quote(str(team), safe=""),
            dataset_id=quote(str(dataset_id), safe=""),
            column=quote(str(column), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | ColumnLineageOutput | None:
    if response.status_code == 200:
        response_200 = ColumnLineageOutput.from_dict(response.json())

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

    if response.status_code == 503:
        response_503 = ApiError.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ApiError | ColumnLineageOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    team: str,
    dataset_id: int,
    column: str,
    *,
    client: AuthenticatedClient,
    depth: int | Unset = UNSET,
) -> Response[ApiError | ColumnLineageOutput]:
    """Where a column of the dataset comes from: input columns, the job, and the kind of each step.

    Args:
        team (str):
        dataset_id (int):
        column (str):
        depth (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ColumnLineageOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        dataset_id=dataset_id,
        column=column,
        depth=depth,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    dataset_id: int,
    column: str,
    *,
    client: AuthenticatedClient,
    depth: int | Unset = UNSET,
) -> ApiError | ColumnLineageOutput | None:
    """Where a column of the dataset comes from: input columns, the job, and the kind of each step.

    Args:
        team (str):
        dataset_id (int):
        column (str):
        depth (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ColumnLineageOutput
    """

    return sync_detailed(
        team=team,
        dataset_id=dataset_id,
        column=column,
        client=client,
        depth=depth,
    ).parsed


async def asyncio_detailed(
    team: str,
    dataset_id: int,
    column: str,
    *,
    client: AuthenticatedClient,
    depth: int | Unset = UNSET,
) -> Response[ApiError | ColumnLineageOutput]:
    """Where a column of the dataset comes from: input columns, the job, and the kind of each step.

    Args:
        team (str):
        dataset_id (int):
        column (str):
        depth (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ColumnLineageOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        dataset_id=dataset_id,
        column=column,
        depth=depth,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    dataset_id: int,
    column: str,
    *,
    client: AuthenticatedClient,
    depth: int | Unset = UNSET,
) -> ApiError | ColumnLineageOutput | None:
    """Where a column of the dataset comes from: input columns, the job, and the kind of each step.

    Args:
        team (str):
        dataset_id (int):
        column (str):
        depth (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ColumnLineageOutput
    """

    return (
        await asyncio_detailed(
            team=team,
            dataset_id=dataset_id,
            column=column,
            client=client,
            depth=depth,
        )
    ).parsed
