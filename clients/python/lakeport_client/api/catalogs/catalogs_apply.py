from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.apply_input_request import ApplyInputRequest
from ...models.apply_result import ApplyResult
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    team: str,
    *,
    body: ApplyInputRequest | File | Unset = UNSET,
    dry_run: bool | Unset = UNSET,
    prune: bool | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["dry_run"] = dry_run

    params["prune"] = prune

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/teams/{team}/apply/".format(
            team=quote(str(team), safe=""),
        ),
        "params": params,
    }

    if isinstance(body, ApplyInputRequest):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, File):
        _kwargs["content"] = body.payload
        headers["Content-Type"] = "application/yaml"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ApiError | ApplyResult | None:
    if response.status_code == 200:
        response_200 = ApplyResult.from_dict(response.json())

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
) -> Response[ApiError | ApplyResult]:
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
    body: ApplyInputRequest | File | Unset = UNSET,
    dry_run: bool | Unset = UNSET,
    prune: bool | Unset = UNSET,
) -> Response[ApiError | ApplyResult]:
    """Make the team's catalogs match a declarative document (JSON or YAML), all or nothing.

    Args:
        team (str):
        dry_run (bool | Unset):
        prune (bool | Unset):
        body (ApplyInputRequest):  Example: {'catalogs': [{'catalog_name': 'lake', 'catalog_type':
            'delta', 'configuration': {'warehouse': 's3a://acme/lake'}}, {'catalog_name': 'sales_pg',
            'catalog_type': 'jdbc', 'configuration': {'type': 'postgresql', 'base-url':
            'jdbc:postgresql://db.example.com:5432/', 'default-database': 'sales', 'username':
            'reporting', 'password': 'write-only'}}], 'prune': False, 'dry_run': True}.
        body (File): The same document as YAML text (also accepted as application/x-yaml,
            text/yaml).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ApplyResult]
    """

    kwargs = _get_kwargs(
        team=team,
        body=body,
        dry_run=dry_run,
        prune=prune,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    *,
    client: AuthenticatedClient,
    body: ApplyInputRequest | File | Unset = UNSET,
    dry_run: bool | Unset = UNSET,
    prune: bool | Unset = UNSET,
) -> ApiError | ApplyResult | None:
    """Make the team's catalogs match a declarative document (JSON or YAML), all or nothing.

    Args:
        team (str):
        dry_run (bool | Unset):
        prune (bool | Unset):
        body (ApplyInputRequest):  Example: {'catalogs': [{'catalog_name': 'lake', 'catalog_type':
            'delta', 'configuration': {'warehouse': 's3a://acme/lake'}}, {'catalog_name': 'sales_pg',
            'catalog_type': 'jdbc', 'configuration': {'type': 'postgresql', 'base-url':
            'jdbc:postgresql://db.example.com:5432/', 'default-database': 'sales', 'username':
            'reporting', 'password': 'write-only'}}], 'prune': False, 'dry_run': True}.
        body (File): The same document as YAML text (also accepted as application/x-yaml,
            text/yaml).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ApplyResult
    """

    return sync_detailed(
        team=team,
        client=client,
        body=body,
        dry_run=dry_run,
        prune=prune,
    ).parsed


async def asyncio_detailed(
    team: str,
    *,
    client: AuthenticatedClient,
    body: ApplyInputRequest | File | Unset = UNSET,
    dry_run: bool | Unset = UNSET,
    prune: bool | Unset = UNSET,
) -> Response[ApiError | ApplyResult]:
    """Make the team's catalogs match a declarative document (JSON or YAML), all or nothing.

    Args:
        team (str):
        dry_run (bool | Unset):
        prune (bool | Unset):
        body (ApplyInputRequest):  Example: {'catalogs': [{'catalog_name': 'lake', 'catalog_type':
            'delta', 'configuration': {'warehouse': 's3a://acme/lake'}}, {'catalog_name': 'sales_pg',
            'catalog_type': 'jdbc', 'configuration': {'type': 'postgresql', 'base-url':
            'jdbc:postgresql://db.example.com:5432/', 'default-database': 'sales', 'username':
            'reporting', 'password': 'write-only'}}], 'prune': False, 'dry_run': True}.
        body (File): The same document as YAML text (also accepted as application/x-yaml,
            text/yaml).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | ApplyResult]
    """

    kwargs = _get_kwargs(
        team=team,
        body=body,
        dry_run=dry_run,
        prune=prune,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    *,
    client: AuthenticatedClient,
    body: ApplyInputRequest | File | Unset = UNSET,
    dry_run: bool | Unset = UNSET,
    prune: bool | Unset = UNSET,
) -> ApiError | ApplyResult | None:
    """Make the team's catalogs match a declarative document (JSON or YAML), all or nothing.

    Args:
        team (str):
        dry_run (bool | Unset):
        prune (bool | Unset):
        body (ApplyInputRequest):  Example: {'catalogs': [{'catalog_name': 'lake', 'catalog_type':
            'delta', 'configuration': {'warehouse': 's3a://acme/lake'}}, {'catalog_name': 'sales_pg',
            'catalog_type': 'jdbc', 'configuration': {'type': 'postgresql', 'base-url':
            'jdbc:postgresql://db.example.com:5432/', 'default-database': 'sales', 'username':
            'reporting', 'password': 'write-only'}}], 'prune': False, 'dry_run': True}.
        body (File): The same document as YAML text (also accepted as application/x-yaml,
            text/yaml).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | ApplyResult
    """

    return (
        await asyncio_detailed(
            team=team,
            client=client,
            body=body,
            dry_run=dry_run,
            prune=prune,
        )
    ).parsed
