from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _restore_fulltext(using: str = "default", **kwargs: Any) -> None:
    from context.search import ensure_sqlite_fulltext

    ensure_sqlite_fulltext(using)


class ContextConfig(AppConfig):
    name = "context"
    verbose_name = _("Context assembly")

    def ready(self) -> None:
        from context import budget  # noqa: F401  (registers the budget's system check)

        post_migrate.connect(_restore_fulltext, dispatch_uid="context.restore_fulltext")
