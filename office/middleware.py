"""The interface language and time zone of a signed-in person (docs/design.md §2: Profile,
Office)."""

import zoneinfo
from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone, translation

from office.selectors import time_zone_known, user_settings

# Where the page's script (static/office/zone.js) keeps the browser's time zone.
TIME_ZONE_COOKIE = "tz"


class UserLanguageMiddleware:
    """Runs after LocaleMiddleware and authentication: a signed-in person sees their own
    choice (else their office's), whatever the cookie or Accept-Language say. Someone
    not signed in keeps LocaleMiddleware's pick (the cookie set when they chose, else the
    browser's preference, else LANGUAGE_CODE)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language, time_zone = user_settings(user=request.user)
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language
        # Times in the person's time zone (pages and the admin): the one they chose, else
        # the one their browser reports (the page's script keeps it in a cookie).
        request.time_zone_chosen = time_zone  # type: ignore[attr-defined]
        zone = time_zone or request.COOKIES.get(TIME_ZONE_COOKIE, "")
        if zone and time_zone_known(zone):
            timezone.activate(zoneinfo.ZoneInfo(zone))
        else:
            timezone.deactivate()
        return self.get_response(request)


class IdOutOfRangeMiddleware:
    """A page asked for with an id past any row's (/c/<31 digits>/): SQLite cannot bind
    such a number and raises OverflowError; the answer is the one for an id that names
    nothing, 404, not a server error. (The JSON API answers the same: config.api.)"""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, OverflowError):
            raise Http404("No such page.")
        return None
