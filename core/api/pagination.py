"""Page-number pagination with a client-chosen page size, capped."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination


class StandardPagination(PageNumberPagination):
    """`?page=N&page_size=M` (M ≤ 1000); responses carry `count`, `next`, `previous`, `results`."""

    page_size_query_param = "page_size"
    max_page_size = 1000
