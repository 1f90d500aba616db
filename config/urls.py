from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from config.api import api
from config.health import healthz
from office.views import ThrottledLoginView

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Rolling summaries moved from the memory app to their own: old admin links still work.
    re_path(
        r"^admin/memory/(?P<rest>(?:rollingsummary|summaryrevision)/.*)$",
        RedirectView.as_view(url="/admin/summaries/%(rest)s", query_string=True),
    ),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("office.urls")),
]
