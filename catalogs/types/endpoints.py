"""Catalogs never reach the platform itself: its database, its Celery broker and its result backend.

A catalog's endpoints (JDBC server, metastore URIs, Redis, NATS, Kafka brokers, object-store endpoints) are
resolved through DNS and compared by address and port with the platform's own services, so every spelling of
one server is the same server: `127.1`, `[::1]`, `localhost.`, `0.0.0.0`, IPv4-mapped IPv6, a name that resolves
to loopback, and this machine's own interface addresses when the service listens on loopback.

The one exception: a PostgreSQL catalog on the platform's PostgreSQL *server* but in another database (a
PostgreSQL connection is scoped to one database; the test suite keeps its sources that way). MySQL crosses
databases on one connection, Redis crosses db numbers with SELECT: on those the whole server is refused.
An operator may also restrict catalogs to an allow-list of hosts (LAKEPORT_CATALOG_ALLOWED_HOSTS). The check
runs on save, at test-connection and again when an engine binds the catalog (a DNS answer may have changed).
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from catalogs.types.calls import DeadlineExceeded, call_with_deadline
from lakeport_engine.catalog_types import DEFINITIONS
from lakeport_engine.catalog_types.base import DEFAULT_PORTS, Endpoint

LOOPBACK = "loopback"  # every address of this machine compares equal to this token
REFUSED = ("points at one of the platform's own services (its database, broker or result backend); "
           "a catalog may not reach them.")
NOT_ALLOWED = "is not on the operator's list of hosts {what} may reach ({setting})."


class EndpointRefused(ValueError):
    """A catalog endpoint the platform will not connect to; the message names the endpoint and the rule."""


@dataclass(frozen=True)
class PlatformService:
    """One of the platform's own servers: its addresses (normalised), port, protocol and database names."""

    name: str
    addresses: frozenset[str]
    port: int
    kind: str
    databases: frozenset[str] = field(default_factory=frozenset)


# ---- addresses --------------------------------------------------------------------------------------------
def _plain_host(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


_OWN_TTL_SECONDS = 60.0  # this host's addresses change rarely; resolving its name at every check would not
_own_cache: tuple[float, set[str]] = (0.0, set())


def _own_addresses() -> set[str]:
    """This machine's addresses as DNS gives them for its host name (the loopback's equals), cached briefly."""
    global _own_cache
    if time.monotonic() - _own_cache[0] < _OWN_TTL_SECONDS:
        return _own_cache[1]
    try:
        infos = call_with_deadline(lambda: socket.getaddrinfo(socket.gethostname(), None, type=socket.SOCK_STREAM),
                                   timeout=5.0, target="DNS for this host")
        found = {str(info[4][0]) for info in infos}
    except (OSError, DeadlineExceeded):
        found = set()
    _own_cache = (time.monotonic(), found)
    return found


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])  # an IPv6 scope id names an interface, not a host
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def addresses_of(host: str, *, timeout: float = 5.0) -> frozenset[str]:
    """The IP addresses `host` resolves to now, IPv4-mapped IPv6 unwrapped (empty: no DNS answer in `timeout`)."""
    plain = _plain_host(host) or "localhost"  # an empty host (a PostgreSQL unix socket) is this machine
    try:
        infos = call_with_deadline(lambda: socket.getaddrinfo(plain, None, type=socket.SOCK_STREAM),
                                   timeout=timeout, target=f"DNS for {plain}")
    except (OSError, DeadlineExceeded, UnicodeError):
        return frozenset()
    found = (_address(str(info[4][0])) for info in infos)
    return frozenset(str(ip) for ip in found if ip is not None)


def normalise(addresses: Iterable[str]) -> frozenset[str]:
    """Addresses with every one that reaches this machine (127.0.0.0/8, ::1, 0.0.0.0, ::, our own interfaces)
    replaced by LOOPBACK, so all spellings of this machine compare equal."""
    own = _own_addresses()
    result = set()
    for text in addresses:
        ip = _address(text)
        local = ip is not None and (ip.is_loopback or ip.is_unspecified or str(ip) in own)
        result.add(LOOPBACK if local else text)
    return frozenset(result)


def resolve(host: str, *, timeout: float = 5.0) -> frozenset[str]:
    """The normalised addresses `host` resolves to now (see `normalise`)."""
    return normalise(addresses_of(host, timeout=timeout))


# ---- the platform's services ------------------------------------------------------------------------------
def _url_service(name: str, url: str) -> PlatformService | None:
    parts = urlsplit(url)
    scheme = parts.scheme.lower().removeprefix("db+").split("+", 1)[0]
    if scheme not in DEFAULT_PORTS:
        return None  # filesystem://, file://, memory://, django-db: nothing to reach over the network
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        return None
    database = parts.path.strip("/")
    kind = {"postgres": "postgresql", "mariadb": "mysql", "rediss": "redis", "amqps": "amqp"}.get(scheme, scheme)
    return PlatformService(name, resolve(parts.hostname or "localhost"), port, kind,
                           frozenset({database}) if database and kind != "redis" else frozenset())


def platform_services() -> list[PlatformService]:
    """The platform's database, broker, result backend and Redis caches, as this process sees them now."""
    from django.conf import settings
    from django.db import connections

    services: list[PlatformService] = []
    db = connections["default"]
    if db.vendor in ("postgresql", "mysql"):
        conf = db.settings_dict
        names = {str(conf.get("NAME") or ""), str(settings.DATABASES["default"].get("NAME") or ""),
                 str((conf.get("TEST") or {}).get("NAME") or "")} - {""}
        port = int(conf.get("PORT") or DEFAULT_PORTS[db.vendor])
        services.append(PlatformService("database", resolve(str(conf.get("HOST") or "")), port, db.vendor,
                                        frozenset(names)))
    urls = [("broker", str(getattr(settings, "CELERY_BROKER_URL", "") or "")),
            ("result backend", str(getattr(settings, "CELERY_RESULT_BACKEND", "") or ""))]
    for cache in getattr(settings, "CACHES", {}).values():
        locations = cache.get("LOCATION") or []
        urls += [("cache", str(loc)) for loc in ([locations] if isinstance(locations, str) else locations)]
    for name, url in urls:
        for one in url.split(";"):  # kombu's failover list
            service = _url_service(name, one.strip()) if one.strip() else None
            if service is not None:
                services.append(service)
    return services


# ---- catalog endpoints ------------------------------------------------------------------------------------
def catalog_endpoints(catalog_type: str, plain: dict[str, Any]) -> list[Endpoint]:
    """The servers a configuration (plain, hyphenated keys) makes the platform and its engines connect to (each
    type's definition reads them, the same reader the Spark side uses)."""
    definition = DEFINITIONS.get(catalog_type)
    return definition.endpoints(plain) if definition is not None else []


# ---- the rule ---------------------------------------------------------------------------------------------
def _platform_refusal(endpoint: Endpoint, addresses: frozenset[str], service: PlatformService) -> bool:
    if endpoint.port != service.port or not addresses & service.addresses:
        return False
    # another database on the platform's PostgreSQL server: a PostgreSQL connection cannot leave its database
    return not (service.kind == "postgresql" and endpoint.kind == "postgresql" and endpoint.databases
                and not endpoint.databases & service.databases)


def _allowed(endpoint: Endpoint, addresses: frozenset[str], allowed: Iterable[str]) -> bool:
    """Whether the operator's list names the host, or holds every address it resolves to (IPs or CIDRs)."""
    host = _plain_host(endpoint.host)
    networks = []
    for entry in allowed:
        name = _plain_host(entry)
        if name == host:
            return True
        try:
            networks.append(ipaddress.ip_network(name, strict=False))
        except ValueError:
            continue
    ips = [ip for ip in (_address(a) for a in addresses) if ip is not None]
    # every address must be inside a listed network: one DNS answer outside it is a way around the list
    return bool(ips) and all(any(ip in n for n in networks) for ip in ips)


def check_endpoints(endpoints: Iterable[Endpoint], *, services: list[PlatformService] | None = None,
                    allowed_hosts: Iterable[str] | None = None,
                    allowed_setting: str = "LAKEPORT_CATALOG_ALLOWED_HOSTS", what: str = "catalogs",
                    resolved: Mapping[str, frozenset[str]] | None = None) -> None:
    """Raise EndpointRefused for the first endpoint that is a platform service or outside the allow-list
    (`allowed_hosts`, the operator's `allowed_setting`; catalogs' by default). `resolved` gives the addresses a
    caller already resolved for a host (and will connect to): those are judged, not a second DNS answer."""
    from django.conf import settings

    services = platform_services() if services is None else services
    allowed = list(settings.LAKEPORT_CATALOG_ALLOWED_HOSTS if allowed_hosts is None else allowed_hosts)
    for endpoint in endpoints:
        raw = resolved[endpoint.host] if resolved and endpoint.host in resolved else addresses_of(endpoint.host)
        if any(_platform_refusal(endpoint, normalise(raw), s) for s in services):
            raise EndpointRefused(f"{endpoint.label} {REFUSED}")
        if allowed and not _allowed(endpoint, raw, allowed):
            raise EndpointRefused(f"{endpoint.label} {NOT_ALLOWED.format(what=what, setting=allowed_setting)}")


def check_catalog_endpoints(catalog_type: str, plain: dict[str, Any]) -> None:
    """Raise EndpointRefused when a configuration reaches the platform's own services or a host not allowed."""
    check_endpoints(catalog_endpoints(catalog_type, plain))
