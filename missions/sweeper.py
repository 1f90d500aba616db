"""Missions a dead worker or a lost broker message left behind (run by beat)."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext

from missions.lifecycle import mission_fail
from missions.models import Mission, MissionStatus
from missions.plans import plan_sweep_overdue
from missions.queueing import mission_queue_run
from missions.selectors import missions_stuck


def mission_sweep_stuck(*, now: datetime | None = None) -> dict[str, int]:
    """Re-queue missions stuck running or waiting, or fail them once they have had their
    attempts; sum up plans whose delegates are overdue."""
    now = now or timezone.now()
    queued_limit = now - timedelta(seconds=settings.MISSION_QUEUED_RESEND_AFTER)
    counts = {"requeued": 0, "failed": 0, "resent": 0}
    for mission in missions_stuck(now=now).select_related("assignee", "channel__office"):
        with transaction.atomic():
            if mission.attempts >= settings.MISSION_MAX_ATTEMPTS:
                if Mission.objects.filter(pk=mission.pk, status=MissionStatus.RUNNING).update(
                    status=MissionStatus.FAILED
                ):
                    with translation.override(mission.channel.office.language):
                        mission_fail(
                            mission=mission,
                            code="interrupted",
                            message=gettext("The answer was interrupted too many times."),
                        )
                    counts["failed"] += 1
            elif Mission.objects.filter(pk=mission.pk, status=MissionStatus.RUNNING).update(
                status=MissionStatus.QUEUED
            ):
                mission_queue_run(mission)
                counts["requeued"] += 1
    waiting = Mission.objects.filter(
        (Q(started_at__isnull=True) | Q(started_at__lt=queued_limit))
        & Q(created_at__lt=queued_limit)
        # Handed back by a process that stopped (mission_hand_back): no worker has it.
        | Q(heartbeat_at__isnull=False, started_at__isnull=True),
        status=MissionStatus.QUEUED,
    ).select_related("assignee")
    for mission in waiting:
        # The claim in mission_run makes a second delivery harmless.
        with transaction.atomic():
            # Sent once as handed back; if this send is lost too, the usual wait applies.
            Mission.objects.filter(pk=mission.pk, status=MissionStatus.QUEUED).update(
                heartbeat_at=None
            )
            mission_queue_run(mission)
        counts["resent"] += 1
    counts["plans_summed"] = plan_sweep_overdue(now=now)
    return counts
