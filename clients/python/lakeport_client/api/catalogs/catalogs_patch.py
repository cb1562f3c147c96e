from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.catalog_output import CatalogOutput
from ...models.patched_catalog_input_request import PatchedCatalogInputRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    team: str,
    name: str,
    *,
    body: PatchedCatalogInputRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/teams/{team}/catalogs/{name}/".format(
            team=quote(str(team), safe=""),
            name=quote(str(name), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | CatalogOutput | None:
    if response.status_code == 200:
        response_200 = CatalogOutput.from_dict(response.json())

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

    if response.status_code == 412:
        response_412 = ApiError.from_dict(response.json())

        return response_412

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
) -> Response[ApiError | CatalogOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    team: str,
    name: str,
    *,
    client: AuthenticatedClient,
    body: PatchedCatalogInputRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[ApiError | CatalogOutput]:
    """Read, create-or-replace (PUT), patch or delete one catalog; writes honour If-Match (412 when stale).

    Args:
        team (str):
        name (str):
        if_match (str | Unset):
        body (PatchedCatalogInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | CatalogOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        name=name,
        body=body,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    name: str,
    *,
    client: AuthenticatedClient,
    body: PatchedCatalogInputRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> ApiError | CatalogOutput | None:
    """Read, create-or-replace (PUT), patch or delete one catalog; writes honour If-Match (412 when stale).

    Args:
        team (str):
        name (str):
        if_match (str | Unset):
        body (PatchedCatalogInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | CatalogOutput
    """

    return sync_detailed(
        team=team,
        name=name,
        client=client,
        body=body,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    team: str,
    name: str,
    *,
    client: AuthenticatedClient,
    body: PatchedCatalogInputRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[ApiError | CatalogOutput]:
    """Read, create-or-replace (PUT), patch or delete one catalog; writes honour If-Match (412 when stale).

    Args:
        team (str):
        name (str):
        if_match (str | Unset):
        body (PatchedCatalogInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | CatalogOutput]
    """

    kwargs = _get_kwargs(
        team=team,
        name=name,
        body=body,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    name: str,
    *,
    client: AuthenticatedClient,
    body: PatchedCatalogInputRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> ApiError | CatalogOutput | None:
    """Read, create-or-replace (PUT), patch or delete one catalog; writes honour If-Match (412 when stale).

    Args:
        team (str):
        name (str):
        if_match (str | Unset):
        body (PatchedCatalogInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | CatalogOutput
    """

    return (
        await asyncio_detailed(
            team=team,
            name=name,
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
