from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OfficeConfig(AppConfig):
    name = "office"
    verbose_name = _("Office")

    def ready(self) -> None:
        from office import signals  # noqa: F401  (connects the auth hooks)
