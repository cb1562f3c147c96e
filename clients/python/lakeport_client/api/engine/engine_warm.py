from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.engine_warm_output import EngineWarmOutput
from ...types import Response


def _get_kwargs(
    team: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/teams/{team}/engine/warm/".format(
            team=quote(str(team), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | EngineWarmOutput | None:
    if response.status_code == 202:
        response_202 = EngineWarmOutput.from_dict(response.json())

        return response_202

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

    if response.status_code == 503:
        response_503 = ApiError.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ApiError | EngineWarmOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    team: str,
    *,
    client: AuthenticatedClient,
) -> Response[ApiError | EngineWarmOutput]:
    """Start the team's engine in the background, so the editor's first validate or preview finds it
    running.

    The SQL editor calls it when it opens; once a minute at most per team (a second call answers
    `false`).

    Args:
        team (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | EngineWarmOutput]
    """

    kwargs = _get_kwargs(
        team=team,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    *,
    client: AuthenticatedClient,
) -> ApiError | EngineWarmOutput | None:
    """Start the team's engine in the background, so the editor's first validate or preview finds it
    running.

    The SQL editor calls it when it opens; once a minute at most per team (a second call answers
    `false`).

    Args:
        team (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | EngineWarmOutput
    """

    return sync_detailed(
        team=team,
        client=client,
    ).parsed


async def asyncio_detailed(
    team: str,
    *,
    client: AuthenticatedClient,
) -> Response[ApiError | EngineWarmOutput]:
    """Start the team's engine in the background, so the editor's first validate or preview finds it
    running.

    The SQL editor calls it when it opens; once a minute at most per team (a second call answers
    `false`).

    Args:
        team (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | EngineWarmOutput]
    """

    kwargs = _get_kwargs(
        team=team,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    *,
    client: AuthenticatedClient,
) -> ApiError | EngineWarmOutput | None:
    """Start the team's engine in the background, so the editor's first validate or preview finds it
    running.

    The SQL editor calls it when it opens; once a minute at most per team (a second call answers
    `false`).

    Args:
        team (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | EngineWarmOutput
    """

    return (
        await asyncio_detailed(
            team=team,
            client=client,
        )
    ).parsed
