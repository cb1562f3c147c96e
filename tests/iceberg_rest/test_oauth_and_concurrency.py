"""The OAuth2 client-credentials flow pyiceberg uses with `credential=`, and concurrent appends through the endpoint:
every commit lands or is refused with 409 (CommitFailedException) and lands on retry; the snapshot log replays to
exactly the rows appended (generated rows, multisets)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
import requests
from pyiceberg.exceptions import CommitFailedException, OAuthError, UnauthorizedError

from teams.models import ApiToken
from teams.services import api_token_revoke
from teams.tokens import token_digest
from tests.iceberg_rest.conftest import Rest
from tests.iceberg_rest.test_pyiceberg_client import SCHEMA, SPEC, generated, multiset

pytestmark = pytest.mark.django_db(transaction=True)


def test_client_credentials_give_a_short_lived_token_for_this_catalog_only(rest: Rest) -> None:
    token = rest.tokens["developer"]
    client = rest.catalog("developer", token="", credential=f"any-client-id:{token}")
    client.create_namespace("via_oauth")
    assert ("via_oauth",) in rest.catalog("viewer").list_namespaces()
    # a secret without a client id works too (pyiceberg sends only client_secret)
    assert ("via_oauth",) in rest.catalog("viewer", token="", credential=rest.tokens["viewer"]).list_namespaces()

    answer = requests.post(f"{rest.base()}/v1/oauth/tokens", timeout=30,
                           data={"grant_type": "client_credentials", "client_secret": token, "scope": "catalog"})
    assert answer.status_code == 200, answer.text
    access = answer.json()["access_token"]
    assert access.startswith("lpi_") and answer.json()["expires_in"] <= 3600
    ok = requests.get(f"{rest.base()}/v1/namespaces", headers={"Authorization": f"Bearer {access}"}, timeout=30)
    assert ok.status_code == 200
    rest.served.append(_served("POST", f"{rest.base()}/v1/oauth/tokens", answer))
    # the access token is for acme/ice only: another catalog's base refuses it
    other = requests.get(f"{rest.base('globex')}/v1/namespaces", headers={"Authorization": f"Bearer {access}"},
                         timeout=30)
    assert other.status_code == 401 and other.json()["error"]["type"] == "NotAuthorizedException"
    # another team's catalog gets no token at all, nor does a wrong secret or grant
    for data in ({"grant_type": "client_credentials", "client_secret": rest.outsider},
                 {"grant_type": "client_credentials", "client_secret": "lpt_wrong"},
                 {"grant_type": "password", "client_secret": token}):
        refused = requests.post(f"{rest.base()}/v1/oauth/tokens", data=data, timeout=30)
        assert refused.status_code in (400, 401) and set(refused.json()) == {"error", "error_description"}, refused.text
    # revoking the team token ends its access tokens at once
    api_token_revoke(token=ApiToken.objects.get(digest=token_digest(token)))
    gone = requests.get(f"{rest.base()}/v1/namespaces", headers={"Authorization": f"Bearer {access}"}, timeout=30)
    assert gone.status_code == 401
    with pytest.raises((OAuthError, UnauthorizedError)):
        rest.catalog("developer", token="", credential=token)


def _served(method: str, url: str, response: requests.Response) -> Any:
    from tests.iceberg_rest.spec import Served

    return Served(method, url.split("//", 1)[1].split("/", 1)[1].join(["/", ""]), response.status_code,
                  response.content)


def test_concurrent_appends_all_land_or_get_409_and_nothing_is_lost(rest: Rest) -> None:
    setup = rest.catalog()
    setup.create_namespace("sales")
    # pyiceberg retries a 409 by itself; with no retries each refusal reaches the test, which retries it
    setup.create_table("sales.t", schema=SCHEMA, partition_spec=SPEC, properties={"commit.retry.num-retries": "0"})

    # deterministic first: two clients hold the same base; the second commit's requirement no longer holds
    one, two = rest.catalog().load_table("sales.t"), rest.catalog().load_table("sales.t")
    one.append(generated(10, 30))
    with pytest.raises(CommitFailedException):
        two.append(generated(11, 30, start=1000))

    # then racing: writers append batches at once, each refusal is a 409 and is retried on the refreshed table
    batches = {w: [generated(100 + w * 10 + b, 25, start=10_000 * (w + 1) + 100 * b) for b in range(3)]
               for w in range(3)}
    refused: Counter[int] = Counter()
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(batches))

    def writer(w: int) -> None:
        try:
            client = rest.catalog()
            barrier.wait()
            for batch in batches[w]:
                while True:
                    try:
                        client.load_table("sales.t").append(batch)
                        break
                    except CommitFailedException:
                        refused[w] += 1
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in batches]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    conflicts = [s for s in rest.served if s.method == "POST" and s.path.endswith("/tables/t") and s.status == 409]
    assert len(conflicts) == 1 + sum(refused.values())  # every refusal the writers saw was the endpoint's 409
    assert all(b"CommitFailedException" in s.body for s in conflicts)
    expected = multiset(generated(10, 30)) + sum((multiset(b) for bs in batches.values() for b in bs), Counter())
    table = rest.catalog("viewer").load_table("sales.t")
    assert multiset(table.scan().to_arrow()) == expected
    # the snapshot log replays: one append snapshot per landed commit, each adding exactly its batch
    snapshots = [table.snapshot_by_id(e.snapshot_id) for e in table.metadata.snapshot_log]
    assert len(snapshots) == 1 + sum(len(b) for b in batches.values())
    assert all(s is not None and s.summary is not None and s.summary.operation.value == "append" for s in snapshots)
    assert sum(int(s.summary["added-records"]) for s in snapshots if s and s.summary) == sum(expected.values())
