from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.dataset_output import DatasetOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    team: str,
    *,
    name: str | Unset = UNSET,
    q: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["name"] = name

    params["q"] = q

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/teams/{team}/lineage/datasets/".format(
            team=quote(str(team), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | list[DatasetOutput] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = DatasetOutput.from_dict(response_200_item_data)

            response_200.append(response_200_item)

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
) -> Response[ApiError | list[DatasetOutput]]:
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
    name: str | Unset = UNSET,
    q: str | Unset = UNSET,
) -> Response[ApiError | list[DatasetOutput]]:
    """The datasets the team's catalogs name: `?name=pg_sales.shop.orders` (exact) or `?q=orders`
    (contains).

    Args:
        team (str):
        name (str | Unset):
        q (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | list[DatasetOutput]]
    """

    kwargs = _get_kwargs(
        team=team,
        name=name,
        q=q,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    *,
    client: AuthenticatedClient,
    name: str | Unset = UNSET,
    q: str | Unset = UNSET,
) -> ApiError | list[DatasetOutput] | None:
    """The datasets the team's catalogs name: `?name=pg_sales.shop.orders` (exact) or `?q=orders`
    (contains).

    Args:
        team (str):
        name (str | Unset):
        q (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | list[DatasetOutput]
    """

    return sync_detailed(
        team=team,
        client=client,
        name=name,
        q=q,
    ).parsed


async def asyncio_detailed(
    team: str,
    *,
    client: AuthenticatedClient,
    name: str | Unset = UNSET,
    q: str | Unset = UNSET,
) -> Response[ApiError | list[DatasetOutput]]:
    """The datasets the team's catalogs name: `?name=pg_sales.shop.orders` (exact) or `?q=orders`
    (contains).

    Args:
        team (str):
        name (str | Unset):
        q (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | list[DatasetOutput]]
    """

    kwargs = _get_kwargs(
        team=team,
        name=name,
        q=q,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    *,
    client: AuthenticatedClient,
    name: str | Unset = UNSET,
    q: str | Unset = UNSET,
) -> ApiError | list[DatasetOutput] | None:
    """The datasets the team's catalogs name: `?name=pg_sales.shop.orders` (exact) or `?q=orders`
    (contains).

    Args:
        team (str):
        name (str | Unset):
        q (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | list[DatasetOutput]
    """

    return (
        await asyncio_detailed(
            team=team,
            client=client,
            name=name,
            q=q,
        )
    ).parsed
