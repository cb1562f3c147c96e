"""Authentication for the Iceberg REST catalog: Lakeport API tokens as bearer tokens, and the spec's OAuth2
client-credentials token endpoint, which exchanges an API token for a short-lived access token of one catalog.

Access tokens are signed (Django's signing, keyed by SECRET_KEY), not stored: each names the API token it came
from and the team and catalog it is for, and every use checks that API token again — revoking or expiring it
ends its access tokens at once.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core import signing
from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from teams.authentication import BearerTokenAuthentication
from teams.models import ApiToken, Team
from teams.selectors import team_role
from teams.tokens import token_digest

ACCESS_PREFIX = "lpi_"  # an access token issued by /v1/oauth/tokens (team tokens start `lpt_`)
ACCESS_TTL_SECONDS = 3600
_SALT = "lakeport.iceberg-rest.access-token"
CLIENT_CREDENTIALS = "client_credentials"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"


class OAuthError(Exception):
    """An OAuth2 token request refused: `error` is the RFC 6749 code (`invalid_client`, …)."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status


def issue_access_token(*, token: ApiToken, team: str, catalog: str) -> str:
    """A signed access token for `team`'s catalog `catalog`, derived from the API token `token`."""
    return ACCESS_PREFIX + signing.dumps({"t": token.pk, "team": team, "catalog": catalog}, salt=_SALT, compress=True)


def oauth_token(*, form: Any, team: str, catalog: str) -> dict[str, Any]:
    """The answer of `POST /v1/oauth/tokens`: `client_credentials` with a Lakeport API token as the client secret
    (the client id is not needed), or a token exchange of a still-valid token for a fresh one."""
    grant = form.get("grant_type")
    if grant == CLIENT_CREDENTIALS:
        raw = form.get("client_secret") or ""
    elif grant == TOKEN_EXCHANGE:
        raw = form.get("subject_token") or ""
    else:
        raise OAuthError("unsupported_grant_type", "Use grant_type client_credentials with a Lakeport API token as "
                         "client_secret, or a token exchange.")
    try:
        token = _access_token(raw, team=team, catalog=catalog) if raw.startswith(ACCESS_PREFIX) else _api_token(raw)
    except exceptions.AuthenticationFailed as exc:
        raise OAuthError("invalid_client", str(exc.detail), status=401) from None
    if _catalog_role(token.user, team) is None:
        # as for every other request: a team the token's user is not in looks like no team at all
        raise OAuthError("invalid_client", "No such catalog for these credentials.", status=401)
    return {"access_token": issue_access_token(token=token, team=team, catalog=catalog), "token_type": "bearer",
            "expires_in": ACCESS_TTL_SECONDS, "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"}


class IcebergTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <token>` with a Lakeport API token, or an access token issued for this catalog."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if len(header) == 2 and header[0].lower() == b"bearer" and header[1].startswith(ACCESS_PREFIX.encode()):
            kwargs = (request.parser_context or {}).get("kwargs", {})
            token = _access_token(header[1].decode(), team=kwargs.get("team", ""), catalog=kwargs.get("catalog", ""))
            return token.user, token
        return BearerTokenAuthentication().authenticate(request)

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


def _access_token(raw: str, *, team: str, catalog: str) -> ApiToken:
    try:
        claims = signing.loads(raw.removeprefix(ACCESS_PREFIX), salt=_SALT, max_age=ACCESS_TTL_SECONDS)
    except signing.SignatureExpired:
        raise exceptions.AuthenticationFailed("Access token has expired; ask /v1/oauth/tokens for a new one.") from None
    except signing.BadSignature:
        raise exceptions.AuthenticationFailed("Invalid token.") from None
    if not isinstance(claims, dict) or claims.get("team") != team or claims.get("catalog") != catalog:
        raise exceptions.AuthenticationFailed("This access token is for another catalog.")
    token_id = claims.get("t")
    token = ApiToken.objects.select_related("user").filter(pk=token_id).first() if isinstance(token_id, int) else None
    if token is None:
        raise exceptions.AuthenticationFailed("Invalid token.")
    _check_live(token)
    return token


def _api_token(raw: str) -> ApiToken:
    token = ApiToken.objects.select_related("user").filter(digest=token_digest(raw)).first() if raw else None
    if token is None:
        raise exceptions.AuthenticationFailed("Invalid token.")
    _check_live(token)
    return token


def _check_live(token: ApiToken) -> None:
    if token.revoked_at is not None:
        raise exceptions.AuthenticationFailed("Token has been revoked.")
    if token.expires_at is not None and token.expires_at <= timezone.now():
        raise exceptions.AuthenticationFailed("Token has expired.")
    if not token.user.is_active:
        raise exceptions.AuthenticationFailed("User inactive.")


def _catalog_role(user: User, team_name: str) -> str | None:
    team = Team.objects.filter(name=team_name).first()
    return team_role(user=user, team=team) if team is not None else None
