"""The cron preview's bodies are what the OpenAPI schema says, key for key, valid or not: they are written by the
serializer the schema is generated from, so a view going back to a hand-built dict that adds, drops or renames a
key fails here."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from tests.support.schema import conforms, response_schema

pytestmark = pytest.mark.django_db

URL = "/api/v1/teams/acme/schedules/preview/"


def _preview(schema: dict[str, Any], client: Any, cron: str, time_zone: str | None = None) -> dict[str, Any]:
    response = client.get(URL, {"cron": cron, **({"time_zone": time_zone} if time_zone else {})})
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    assert conforms(body, response_schema(schema, URL), schema) == [], body
    return body


def test_preview_bodies_follow_the_schema(schema: dict[str, Any], client_for: Any) -> None:
    viewer = client_for("viewer")

    ok = _preview(schema, viewer, "0 9 * * 1-5", "Asia/Tokyo")
    assert list(ok) == ["cron", "time_zone", "valid", "next_fire_times", "error"]
    assert (ok["cron"], ok["time_zone"], ok["valid"], ok["error"]) == ("0 9 * * 1-5", "Asia/Tokyo", True, None)
    times = [datetime.fromisoformat(t) for t in ok["next_fire_times"]]
    assert len(times) == 5 and times == sorted(times)
    assert all(t.hour == 9 and t.minute == 0 and t.isoweekday() <= 5 and t.utcoffset().total_seconds() == 9 * 3600
               for t in times)

    half = _preview(schema, viewer, "*/15 * * *")  # half-typed: 200 with the reason
    message = half["error"].pop("message")
    assert half == {"cron": "*/15 * * *", "time_zone": "UTC", "valid": False, "next_fire_times": [],
                    "error": {"field": "cron"}}
    assert message and isinstance(message, str)
    bad_zone = _preview(schema, viewer, "0 9 * * *", "Mars/Olympus")
    assert (bad_zone["valid"], bad_zone["next_fire_times"], bad_zone["error"]["field"]) == (False, [], "time_zone")
    assert "Mars/Olympus" in bad_zone["error"]["message"]
