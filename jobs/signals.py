"""Signal receivers of the jobs app: signing in starts the user's team engines in the background (issue 31)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from jobs.services.warmup import warm_on_sign_in


@receiver(user_logged_in, dispatch_uid="lakeport-warm-on-sign-in")
def warm_engines_on_sign_in(sender: Any, user: Any, **kwargs: Any) -> None:
    """A member who signs in is about to open the editor: their first query should not wait for a cold engine."""
    if settings.LAKEPORT_ENGINE_WARM_ON_SIGN_IN:
        warm_on_sign_in(user_id=user.pk)
