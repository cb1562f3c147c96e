from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.run_output import RunOutput
from ...types import Response


def _get_kwargs(
    team: str,
    run_id: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/teams/{team}/runs/{run_id}/cancel/".format(
            team=quote(str(team), safe=""),
            run_id=quote(str(run_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ApiError | RunOutput | None:
    if response.status_code == 202:
        response_202 = RunOutput.from_dict(response.json())

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
) -> Response[ApiError | RunOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    team: str,
    run_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[ApiError | RunOutput]:
    """Cancel a queued or running run; a finished run answers 409.

    Args:
        team (str):
        run_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | RunOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        run_id=run_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    run_id: int,
    *,
    client: AuthenticatedClient,
) -> ApiError | RunOutput | None:
    """Cancel a queued or running run; a finished run answers 409.

    Args:
        team (str):
        run_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | RunOutput
    """

    return sync_detailed(
        team=team,
        run_id=run_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    team: str,
    run_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[ApiError | RunOutput]:
    """Cancel a queued or running run; a finished run answers 409.

    Args:
        team (str):
        run_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | RunOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        run_id=run_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    run_id: int,
    *,
    client: AuthenticatedClient,
) -> ApiError | RunOutput | None:
    """Cancel a queued or running run; a finished run answers 409.

    Args:
        team (str):
        run_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | RunOutput
    """

    return (
        await asyncio_detailed(
            team=team,
            run_id=run_id,
            client=client,
        )
    ).parsed
