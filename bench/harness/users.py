"""The setup subprocess (Django-configured): N users, each with an office, a logged-in
session cookie and optionally K finished missions in the session of the 1:1 channel its
client will use.

Run by the Stack only:  python -m bench.harness.users SPEC OUT"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from bench.harness.base import ROOT


def _setup_main(spec_path: str, out_path: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from datetime import timedelta

    from django.conf import settings
    from django.contrib.auth.models import User
    from django.db import transaction
    from django.test import Client
    from django.utils import timezone

    from missions.models import Message, MessageKind, Mission, MissionSource, MissionStatus
    from office.models import Channel, ChannelKind
    from office.services import office_create_with_team
    from sessions.models import ChatSession

    spec = json.loads(Path(spec_path).read_text())
    run_id: str = spec["run_id"]
    out: list[dict[str, Any]] = []
    now = timezone.now()
    for index, prefill in enumerate(spec["prefill"]):
        user = User(username=f"bench{index}-{run_id}"[:150])
        user.set_unusable_password()
        user.save()
        office = office_create_with_team(owner=user, name="Bench office")
        channel = (
            Channel.objects.select_related("employee")
            .filter(office=office, kind=ChannelKind.DM, employee__is_master=False)
            .order_by("employee_id")
            .first()
        )
        assert channel is not None and channel.employee is not None
        session = ChatSession.objects.get(channel=channel, closed_at__isnull=True)
        if prefill:
            with transaction.atomic():
                missions = Mission.objects.bulk_create(
                    Mission(
                        session=session,
                        channel=channel,
                        seq=seq,
                        label=str(seq),
                        source=MissionSource.DM,
                        assignee=channel.employee,
                        instruction=f"Earlier request {seq}: draft item {seq} of the plan.",
                        reply=f"Done: item {seq} of the plan is drafted and shared.",
                        status=MissionStatus.DONE,
                        attempts=1,
                        created_at=now - timedelta(minutes=prefill - seq + 1),
                        started_at=now - timedelta(minutes=prefill - seq + 1),
                        finished_at=now - timedelta(minutes=prefill - seq + 1),
                    )
                    for seq in range(1, prefill + 1)
                )
                Message.objects.bulk_create(
                    message
                    for mission in missions
                    for message in (
                        Message(
                            channel=channel,
                            session=session,
                            mission=mission,
                            kind=MessageKind.USER,
                            text=mission.instruction,
                            payload={"client_id": "", "seq": mission.seq},
                            created_at=mission.created_at,
                        ),
                        Message(
                            channel=channel,
                            session=session,
                            mission=mission,
                            kind=MessageKind.EMPLOYEE,
                            author=channel.employee,
                            text=mission.reply,
                            payload={"seq": mission.seq},
                            created_at=mission.created_at,
                        ),
                    )
                )
                ChatSession.objects.filter(pk=session.pk).update(mission_count=prefill)
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        out.append(
            {
                "index": index,
                "username": user.username,
                "cookie_name": settings.SESSION_COOKIE_NAME,
                "cookie": cookie,
                "channel_id": channel.pk,
                "session_id": session.pk,
                "employee": channel.employee.name,
                "prefill": prefill,
            }
        )
    Path(out_path).write_text(json.dumps(out))


if __name__ == "__main__":
    if len(sys.argv) == 3:
        _setup_main(sys.argv[1], sys.argv[2])
    else:
        sys.exit("usage: python -m bench.harness.users SPEC OUT (run by the Stack)")
