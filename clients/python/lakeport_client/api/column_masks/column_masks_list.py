from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.paginated_column_mask_output_list import PaginatedColumnMaskOutputList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    team: str,
    *,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    table: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["page"] = page

    params["page_size"] = page_size

    params["table"] = table

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/teams/{team}/column-masks/".format(
            team=quote(str(team), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | PaginatedColumnMaskOutputList | None:
    if response.status_code == 200:
        response_200 = PaginatedColumnMaskOutputList.from_dict(response.json())

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
) -> Response[ApiError | PaginatedColumnMaskOutputList]:
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
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    table: str | Unset = UNSET,
) -> Response[ApiError | PaginatedColumnMaskOutputList]:
    """A team's column masks (`?table=` one table's); team admins and MANAGE holders attach them.

    Args:
        team (str):
        page (int | Unset):
        page_size (int | Unset):
        table (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | PaginatedColumnMaskOutputList]
    """

    kwargs = _get_kwargs(
        team=team,
        page=page,
        page_size=page_size,
        table=table,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    *,
    client: AuthenticatedClient,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    table: str | Unset = UNSET,
) -> ApiError | PaginatedColumnMaskOutputList | None:
    """A team's column masks (`?table=` one table's); team admins and MANAGE holders attach them.

    Args:
        team (str):
        page (int | Unset):
        page_size (int | Unset):
        table (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | PaginatedColumnMaskOutputList
    """

    return sync_detailed(
        team=team,
        client=client,
        page=page,
        page_size=page_size,
        table=table,
    ).parsed


async def asyncio_detailed(
    team: str,
    *,
    client: AuthenticatedClient,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    table: str | Unset = UNSET,
) -> Response[ApiError | PaginatedColumnMaskOutputList]:
    """A team's column masks (`?table=` one table's); team admins and MANAGE holders attach them.

    Args:
        team (str):
        page (int | Unset):
        page_size (int | Unset):
        table (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | PaginatedColumnMaskOutputList]
    """

    kwargs = _get_kwargs(
        team=team,
        page=page,
        page_size=page_size,
        table=table,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    *,
    client: AuthenticatedClient,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    table: str | Unset = UNSET,
) -> ApiError | PaginatedColumnMaskOutputList | None:
    """A team's column masks (`?table=` one table's); team admins and MANAGE holders attach them.

    Args:
        team (str):
        page (int | Unset):
        page_size (int | Unset):
        table (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | PaginatedColumnMaskOutputList
    """

    return (
        await asyncio_detailed(
            team=team,
            client=client,
            page=page,
            page_size=page_size,
            table=table,
        )
    ).parsed
