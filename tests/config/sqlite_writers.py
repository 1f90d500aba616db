"""Run as a script: many threads write to one SQLite file at once, as the web process and
its task thread do in the embedded default. Prints the number of errors."""

import os
import sys
import threading

import django

os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connections, transaction  # noqa: E402

from missions.models import Mission, MissionSource  # noqa: E402
from sessions.models import ChatSession  # noqa: E402

THREADS, WRITES = int(sys.argv[1]), int(sys.argv[2])


def main() -> None:
    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0)
    session = ChatSession.objects.filter(channel__kind="dm").select_related("channel").first()
    assert session is not None and session.channel.employee is not None
    employee = session.channel.employee
    errors: list[str] = []
    start = threading.Barrier(THREADS)

    def writer(n: int) -> None:
        start.wait()
        try:
            for _ in range(WRITES):
                # Read then write in one transaction: the pattern that fails with
                # "database is locked" when transactions start deferred.
                with transaction.atomic():
                    current = ChatSession.objects.get(pk=session.pk)
                    seq = current.mission_count + 1
                    Mission.objects.create(
                        session=current,
                        channel=session.channel,
                        seq=seq,
                        label=str(seq),
                        source=MissionSource.DM,
                        assignee=employee,
                        instruction=f"from thread {n}",
                    )
                    ChatSession.objects.filter(pk=current.pk).update(mission_count=seq)
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(len(errors), Mission.objects.count(), errors[:3])


main()
