"""The interface language of a signed-in person (DESIGN: Korean and English users)."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
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
