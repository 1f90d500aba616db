from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from context.models import Passage
from language.analysis import analyser
from language.reindex import reterm
from memory.models import MemoryItem


class Command(BaseCommand):
    help = (
        "Write the search terms of recall passages and memory items again with the Korean "
        "analyser in use (SEARCH_KOREAN_ANALYSER); run it after changing that setting. "
        "Only rows holding Hangul are read unless --all is given. Safe to run while the "
        "office is up, and to run again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--all", action="store_true", help="read every row, not only those holding Hangul"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"Korean analyser: {analyser()}")
        for model, label in ((Passage, "recall passages"), (MemoryItem, "memory items")):

            def progress(read: int, label: str = label) -> None:
                self.stdout.write(f"  {label}: {read} read", ending="\r")

            changed = reterm(model, hangul_only=not options["all"], progress=progress)
            self.stdout.write(f"{label}: {changed} rewritten" + " " * 20)
