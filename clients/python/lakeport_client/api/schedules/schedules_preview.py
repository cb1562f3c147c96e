from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.preview_output import PreviewOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    team: str,
    *,
    cron: str,
    time_zone: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["cron"] = cron

    params["time_zone"] = time_zone

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/teams/{team}/schedules/preview/".format(
            team=quote(str(team), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | PreviewOutput | None:
    if response.status_code == 200:
        response_200 = PreviewOutput.from_dict(response.json())

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
) -> Response[ApiError | PreviewOutput]:
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
    cron: str,
    time_zone: str | Unset = UNSET,
) -> Response[ApiError | PreviewOutput]:
    """The next five fire times of `?cron=…&time_zone=…` (the schedule editor calls it as you type).

    A half-typed expression is the normal case here, so it answers 200 with `valid: false` and the
    reason.

    Args:
        team (str):
        cron (str):
        time_zone (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | PreviewOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        cron=cron,
        time_zone=time_zone,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    *,
    client: AuthenticatedClient,
    cron: str,
    time_zone: str | Unset = UNSET,
) -> ApiError | PreviewOutput | None:
    """The next five fire times of `?cron=…&time_zone=…` (the schedule editor calls it as you type).

    A half-typed expression is the normal case here, so it answers 200 with `valid: false` and the
    reason.

    Args:
        team (str):
        cron (str):
        time_zone (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | PreviewOutput
    """

    return sync_detailed(
        team=team,
        client=client,
        cron=cron,
        time_zone=time_zone,
    ).parsed


async def asyncio_detailed(
    team: str,
    *,
    client: AuthenticatedClient,
    cron: str,
    time_zone: str | Unset = UNSET,
) -> Response[ApiError | PreviewOutput]:
    """The next five fire times of `?cron=…&time_zone=…` (the schedule editor calls it as you type).

    A half-typed expression is the normal case here, so it answers 200 with `valid: false` and the
    reason.

    Args:
        team (str):
        cron (str):
        time_zone (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | PreviewOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        cron=cron,
        time_zone=time_zone,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    *,
    client: AuthenticatedClient,
    cron: str,
    time_zone: str | Unset = UNSET,
) -> ApiError | PreviewOutput | None:
    """The next five fire times of `?cron=…&time_zone=…` (the schedule editor calls it as you type).

    A half-typed expression is the normal case here, so it answers 200 with `valid: false` and the
    reason.

    Args:
        team (str):
        cron (str):
        time_zone (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | PreviewOutput
    """

    return (
        await asyncio_detailed(
            team=team,
            client=client,
            cron=cron,
            time_zone=time_zone,
        )
    ).parsed
