from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _restore_fulltext(using: str = "default", **kwargs: Any) -> None:
    from memory.search import ensure_sqlite_fulltext

    ensure_sqlite_fulltext(using)


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Memory and summaries"

    def ready(self) -> None:
        post_migrate.connect(_restore_fulltext, dispatch_uid="memory.restore_fulltext")
