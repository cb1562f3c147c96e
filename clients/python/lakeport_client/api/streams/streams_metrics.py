from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.stream_metrics_output import StreamMetricsOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    team: str,
    job_id: int,
    *,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["since"] = since

    params["until"] = until

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/teams/{team}/jobs/{job_id}/stream/metrics/".format(
            team=quote(str(team), safe=""),
            job_id=quote(str(job_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | StreamMetricsOutput | None:
    if response.status_code == 200:
        response_200 = StreamMetricsOutput.from_dict(response.json())

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

    if response.status_code == 503:
        response_503 = ApiError.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ApiError | StreamMetricsOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    team: str,
    job_id: int,
    *,
    client: AuthenticatedClient,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
) -> Response[ApiError | StreamMetricsOutput]:
    """Per-batch metrics in `[since, until]`, oldest first, at most 2000 (the newest when there are more).

    Args:
        team (str):
        job_id (int):
        since (str | Unset):
        until (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | StreamMetricsOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        job_id=job_id,
        since=since,
        until=until,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    job_id: int,
    *,
    client: AuthenticatedClient,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
) -> ApiError | StreamMetricsOutput | None:
    """Per-batch metrics in `[since, until]`, oldest first, at most 2000 (the newest when there are more).

    Args:
        team (str):
        job_id (int):
        since (str | Unset):
        until (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | StreamMetricsOutput
    """

    return sync_detailed(
        team=team,
        job_id=job_id,
        client=client,
        since=since,
        until=until,
    ).parsed


async def asyncio_detailed(
    team: str,
    job_id: int,
    *,
    client: AuthenticatedClient,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
) -> Response[ApiError | StreamMetricsOutput]:
    """Per-batch metrics in `[since, until]`, oldest first, at most 2000 (the newest when there are more).

    Args:
        team (str):
        job_id (int):
        since (str | Unset):
        until (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | StreamMetricsOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        job_id=job_id,
        since=since,
        until=until,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    job_id: int,
    *,
    client: AuthenticatedClient,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
) -> ApiError | StreamMetricsOutput | None:
    """Per-batch metrics in `[since, until]`, oldest first, at most 2000 (the newest when there are more).

    Args:
        team (str):
        job_id (int):
        since (str | Unset):
        until (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | StreamMetricsOutput
    """

    return (
        await asyncio_detailed(
            team=team,
            job_id=job_id,
            client=client,
            since=since,
            until=until,
        )
    ).parsed
