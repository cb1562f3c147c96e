from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_error import ApiError
from ...models.catalogs_list_catalog_type import CatalogsListCatalogType
from ...models.paginated_catalog_output_list import PaginatedCatalogOutputList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    team: str,
    *,
    catalog_type: CatalogsListCatalogType | Unset = UNSET,
    name_prefix: str | Unset = UNSET,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    search: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_catalog_type: str | Unset = UNSET
    if not isinstance(catalog_type, Unset):
        json_catalog_type = catalog_type.value

    params["catalog_type"] = json_catalog_type

    params["name_prefix"] = name_prefix

    params["page"] = page

    params["page_size"] = page_size

    params["search"] = search

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/teams/{team}/catalogs/".format(
            team=quote(str(team), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApiError | PaginatedCatalogOutputList | None:
    if response.status_code == 200:
        response_200 = PaginatedCatalogOutputList.from_dict(response.json())

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
) -> Response[ApiError | PaginatedCatalogOutputList]:
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
    catalog_type: CatalogsListCatalogType | Unset = UNSET,
    name_prefix: str | Unset = UNSET,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    search: str | Unset = UNSET,
) -> Response[ApiError | PaginatedCatalogOutputList]:
    """List the team's catalogs (filtered, paginated); admins create one.

    Args:
        team (str):
        catalog_type (CatalogsListCatalogType | Unset):
        name_prefix (str | Unset):
        page (int | Unset):
        page_size (int | Unset):
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | PaginatedCatalogOutputList]
    """

    kwargs = _get_kwargs(
        team=team,
        catalog_type=catalog_type,
        name_prefix=name_prefix,
        page=page,
        page_size=page_size,
        search=search,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team: str,
    *,
    client: AuthenticatedClient,
    catalog_type: CatalogsListCatalogType | Unset = UNSET,
    name_prefix: str | Unset = UNSET,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    search: str | Unset = UNSET,
) -> ApiError | PaginatedCatalogOutputList | None:
    """List the team's catalogs (filtered, paginated); admins create one.

    Args:
        team (str):
        catalog_type (CatalogsListCatalogType | Unset):
        name_prefix (str | Unset):
        page (int | Unset):
        page_size (int | Unset):
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | PaginatedCatalogOutputList
    """

    return sync_detailed(
        team=team,
        client=client,
        catalog_type=catalog_type,
        name_prefix=name_prefix,
        page=page,
        page_size=page_size,
        search=search,
    ).parsed


async def asyncio_detailed(
    team: str,
    *,
    client: AuthenticatedClient,
    catalog_type: CatalogsListCatalogType | Unset = UNSET,
    name_prefix: str | Unset = UNSET,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    search: str | Unset = UNSET,
) -> Response[ApiError | PaginatedCatalogOutputList]:
    """List the team's catalogs (filtered, paginated); admins create one.

    Args:
        team (str):
        catalog_type (CatalogsListCatalogType | Unset):
        name_prefix (str | Unset):
        page (int | Unset):
        page_size (int | Unset):
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApiError | PaginatedCatalogOutputList]
    """

    kwargs = _get_kwargs(
        team=team,
        catalog_type=catalog_type,
        name_prefix=name_prefix,
        page=page,
        page_size=page_size,
        search=search,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team: str,
    *,
    client: AuthenticatedClient,
    catalog_type: CatalogsListCatalogType | Unset = UNSET,
    name_prefix: str | Unset = UNSET,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    search: str | Unset = UNSET,
) -> ApiError | PaginatedCatalogOutputList | None:
    """List the team's catalogs (filtered, paginated); admins create one.

    Args:
        team (str):
        catalog_type (CatalogsListCatalogType | Unset):
        name_prefix (str | Unset):
        page (int | Unset):
        page_size (int | Unset):
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApiError | PaginatedCatalogOutputList
    """

    return (
        await asyncio_detailed(
            team=team,
            client=client,
            catalog_type=catalog_type,
            name_prefix=name_prefix,
            page=page,
            page_size=page_size,
            search=search,
        )
    ).parsed
