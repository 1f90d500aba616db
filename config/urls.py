from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path, re_path
from django.views.generic import RedirectView

from config.api import api
from config.health import healthz
from office.admin import admin_password_change
from office.views import (
    ThrottledLoginView,
    ThrottledPasswordChangeView,
    ThrottledPasswordResetView,
)

# Django's account pages, less the password-reset ones unless mail can be sent (without a
# mail server they only burn a hash per request and tell a stranger which e-mails exist).
accounts: list[URLPattern | URLResolver] = [
    path("login/", ThrottledLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password_change/", ThrottledPasswordChangeView.as_view(), name="password_change"),
    path(
        "password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
]
if settings.PASSWORD_RESET_ENABLED:
    accounts += [
        path("password_reset/", ThrottledPasswordResetView.as_view(), name="password_reset"),
        path(
            "password_reset/done/",
            auth_views.PasswordResetDoneView.as_view(),
            name="password_reset_done",
        ),
        path(
            "reset/<uidb64>/<token>/",
            auth_views.PasswordResetConfirmView.as_view(),
            name="password_reset_confirm",
        ),
        path(
            "reset/done/",
            auth_views.PasswordResetCompleteView.as_view(),
            name="password_reset_complete",
        ),
    ]

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Rolling summaries moved from the memory app to their own: old admin links still work.
    re_path(
        r"^admin/memory/(?P<rest>(?:rollingsummary|summaryrevision)/.*)$",
        RedirectView.as_view(url="/admin/summaries/%(rest)s", query_string=True),
    ),
    # Ahead of the admin's own: its old password is counted like a log-in (office.auth).
    path(
        "admin/password_change/",
        admin.site.admin_view(admin_password_change),
        name="admin_password_change",
    ),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("accounts/", include(accounts)),
    path("", include("office.urls")),
]
