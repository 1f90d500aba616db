from django.apps import AppConfig


class OfficeConfig(AppConfig):
    name = "office"
    verbose_name = "Office"

    def ready(self) -> None:
        from office import signals  # noqa: F401  (connects the auth hooks)
