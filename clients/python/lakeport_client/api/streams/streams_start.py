from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.stream_state_output import StreamStateOutput
from ...types import Response


def _get_kwargs(
    team: str,
    job_id: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/teams/{team}/jobs/{job_id}/stream/start/".format(
            team=quote(str(team), safe=""),
            job_id=quote(str(job_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | StreamStateOutput | None:
    if response.status_code == 202:
        response_202 = StreamStateOutput.from_dict(response.json())

        return response_202

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
) -> Response[ApiError | StreamStateOutput]:
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
) -> Response[ApiError | StreamStateOutput]:
    """Start the stream (409 unless STOPPED or FAILED); a worker's supervisor starts its driver.

    A statement that cannot start is a 400 before anything changes: a parameter without a usable default
    (`details.parameters`), or (`details.sql`, naming the statement, its line and the rule) a script
    that is not
    batch statements then one streaming INSERT, an unknown EMIT clause, a STREAM(…) or target in a
    catalog the
    team does not have, a STREAM(…) of a catalog type that cannot stream.

    Args:
        team (str):
        job_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | StreamStateOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        job_id=job_id,
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
) -> ApiError | StreamStateOutput | None:
    """Start the stream (409 unless STOPPED or FAILED); a worker's supervisor starts its driver.

    A statement that cannot start is a 400 before anything changes: a parameter without a usable default
    (`details.parameters`), or (`details.sql`, naming the statement, its line and the rule) a script
    that is not
    batch statements then one streaming INSERT, an unknown EMIT clause, a STREAM(…) or target in a
    catalog the
    team does not have, a STREAM(…) of a catalog type that cannot stream.

    Args:
        team (str):
        job_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | StreamStateOutput
    """

    return sync_detailed(
        team=team,
        job_id=job_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    team: str,
    job_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[ApiError | StreamStateOutput]:
    """Start the stream (409 unless STOPPED or FAILED); a worker's supervisor starts its driver.

    A statement that cannot start is a 400 before anything changes: a parameter without a usable default
    (`details.parameters`), or (`details.sql`, naming the statement, its line and the rule) a script
    that is not
    batch statements then one streaming INSERT, an unknown EMIT clause, a STREAM(…) or target in a
    catalog the
    team does not have, a STREAM(…) of a catalog type that cannot stream.

    Args:
        team (str):
        job_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | StreamStateOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        job_id=job_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    job_id: int,
    *,
    client: AuthenticatedClient,
) -> ApiError | StreamStateOutput | None:
    """Start the stream (409 unless STOPPED or FAILED); a worker's supervisor starts its driver.

    A statement that cannot start is a 400 before anything changes: a parameter without a usable default
    (`details.parameters`), or (`details.sql`, naming the statement, its line and the rule) a script
    that is not
    batch statements then one streaming INSERT, an unknown EMIT clause, a STREAM(…) or target in a
    catalog the
    team does not have, a STREAM(…) of a catalog type that cannot stream.

    Args:
        team (str):
        job_id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | StreamStateOutput
    """

    return (
        await asyncio_detailed(
            team=team,
            job_id=job_id,
            client=client,
        )
    ).parsed
