"""The interface language of a signed-in person (docs/design.md §2: Profile, Office)."""

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse
from django.utils import translation

from office.selectors import user_language


class UserLanguageMiddleware:
    """Runs after LocaleMiddleware and authentication: a signed-in person sees their own
    choice (else their office's), whatever the cookie or Accept-Language say. Someone
    not signed in keeps LocaleMiddleware's pick (the cookie set when they chose, else the
    browser's preference, else LANGUAGE_CODE)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = user_language(user=request.user)
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language
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
