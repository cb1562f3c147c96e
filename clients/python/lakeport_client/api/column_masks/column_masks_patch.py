from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.column_mask_output import ColumnMaskOutput
from ...models.patched_column_mask_detail_api_input_request import (
    PatchedColumnMaskDetailApiInputRequest,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    team: str,
    mask_id: int,
    *,
    body: PatchedColumnMaskDetailApiInputRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/teams/{team}/column-masks/{mask_id}/".format(
            team=quote(str(team), safe=""),
            mask_id=quote(str(mask_id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | ColumnMaskOutput | None:
    if response.status_code == 200:
        response_200 = ColumnMaskOutput.from_dict(response.json())

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

    if response.status_code == 503:
        response_503 = ApiError.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ApiError | ColumnMaskOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    team: str,
    mask_id: int,
    *,
    client: AuthenticatedClient,
    body: PatchedColumnMaskDetailApiInputRequest | Unset = UNSET,
) -> Response[ApiError | ColumnMaskOutput]:
    """One column mask: read, change or remove it (team admins, or MANAGE on its table).

    Args:
        team (str):
        mask_id (int):
        body (PatchedColumnMaskDetailApiInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ColumnMaskOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        mask_id=mask_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    mask_id: int,
    *,
    client: AuthenticatedClient,
    body: PatchedColumnMaskDetailApiInputRequest | Unset = UNSET,
) -> ApiError | ColumnMaskOutput | None:
    """One column mask: read, change or remove it (team admins, or MANAGE on its table).

    Args:
        team (str):
        mask_id (int):
        body (PatchedColumnMaskDetailApiInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ColumnMaskOutput
    """

    return sync_detailed(
        team=team,
        mask_id=mask_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    team: str,
    mask_id: int,
    *,
    client: AuthenticatedClient,
    body: PatchedColumnMaskDetailApiInputRequest | Unset = UNSET,
) -> Response[ApiError | ColumnMaskOutput]:
    """One column mask: read, change or remove it (team admins, or MANAGE on its table).

    Args:
        team (str):
        mask_id (int):
        body (PatchedColumnMaskDetailApiInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ColumnMaskOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        mask_id=mask_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    mask_id: int,
    *,
    client: AuthenticatedClient,
    body: PatchedColumnMaskDetailApiInputRequest | Unset = UNSET,
) -> ApiError | ColumnMaskOutput | None:
    """One column mask: read, change or remove it (team admins, or MANAGE on its table).

    Args:
        team (str):
        mask_id (int):
        body (PatchedColumnMaskDetailApiInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ColumnMaskOutput
    """

    return (
        await asyncio_detailed(
            team=team,
            mask_id=mask_id,
            client=client,
            body=body,
        )
    ).parsed
