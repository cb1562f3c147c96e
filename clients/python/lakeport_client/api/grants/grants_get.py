from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.grant_output import GrantOutput
from ...types import Response


def _get_kwargs(
    team: str,
    grant_id: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/teams/{team}/grants/{grant_id}/".format(
            team=quote(str(team), safe=""),
            grant_id=quote(str(grant_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ApiError | GrantOutput | None:
    if response.status_code == 200:
        response_200 = GrantOutput.from_dict(response.json())

        return response_200

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
) -> Response[ApiError | GrantOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    team: str,
    grant_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[ApiError | GrantOutput]:
    """One grant: read it or revoke it (team admins, or MANAGE on its securable).

    Args:
        team (str):
        grant_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | GrantOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        grant_id=grant_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    grant_id: int,
    *,
    client: AuthenticatedClient,
) -> ApiError | GrantOutput | None:
    """One grant: read it or revoke it (team admins, or MANAGE on its securable).

    Args:
        team (str):
        grant_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | GrantOutput
    """

    return sync_detailed(
        team=team,
        grant_id=grant_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    team: str,
    grant_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[ApiError | GrantOutput]:
    """One grant: read it or revoke it (team admins, or MANAGE on its securable).

    Args:
        team (str):
        grant_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | GrantOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        grant_id=grant_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    grant_id: int,
    *,
    client: AuthenticatedClient,
) -> ApiError | GrantOutput | None:
    """One grant: read it or revoke it (team admins, or MANAGE on its securable).

    Args:
        team (str):
        grant_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | GrantOutput
    """

    return (
        await asyncio_detailed(
            team=team,
            grant_id=grant_id,
            client=client,
        )
    ).parsed
