from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client
from django.urls import reverse

from memory.models import MemoryItem
from missions.models import Mission, MissionStatus
from summaries import compaction
from summaries.models import RollingSummary
from summaries.render import state_refs
from summaries.schemas import SummaryItem, SummaryState
from summaries.verifier import summary_verify
from tests.factories import add_finished_missions, dm_channel, make_office, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def _staff() -> Client:
    user = make_user()
    user.is_staff = user.is_superuser = True
    user.save()
    client = Client()
    client.force_login(user)
    return client


def _decisions(n: int) -> tuple[str, str]:
    if n == 1:
        return ("We decided the launch city is Lisbon.", "Lisbon it is.")
    if n == 3:
        return ("Change of plan: we decided the launch city is Porto instead.", "Porto.")
    return (f"Task {n}: prepare brief {n} for Client Alpha by May {n}.", f"Done brief {n}.")


def _session_with_folds(count: int = 14, text: Any = _decisions):
    channel = dm_channel(make_office())
    session = channel.sessions.get()
    add_finished_missions(session, count, text=text)
    return session, RollingSummary.objects.get(session=session)


def test_every_admin_page_renders_with_data() -> None:
    session, summary = _session_with_folds()
    MemoryItem.objects.create(
        office=session.channel.office,
        scope="office",
        kind="fact",
        text="<b>bold</b> claim",
        origin="user",
    )
    revision = summary.revisions.order_by("-version").first()
    assert revision is not None
    client = _staff()
    pages = [
        reverse("admin:summaries_rollingsummary_change", args=[summary.pk]),
        reverse("admin:summaries_summaryrevision_change", args=[revision.pk]),
        reverse("admin:summaries_summaryrevision_diff") + f"?a={revision.pk}",
        reverse("admin:memory_memoryitem_changelist") + "?q=claim",
        reverse("admin:chat_sessions_chatsession_changelist"),
        reverse("admin:missions_mission_changelist") + "?attention=stuck",
        reverse("admin:missions_mission_changelist") + "?attention=failed",
        reverse("admin:office_channel_context", args=[session.channel_id]) + "?instruction=x",
        reverse("admin:office_office_cost"),
        reverse("admin:summaries_rollingsummary_changelist"),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
    summary_page = client.get(pages[0]).content.decode()
    assert "<del>We decided the launch city is Lisbon.</del>" in summary_page
    assert (
        reverse(
            "admin:missions_mission_change", args=[Mission.objects.get(session=session, seq=1).pk]
        )
        in summary_page
    )
    memory_page = client.get(pages[3]).content.decode()
    assert "&lt;b&gt;bold&lt;/b&gt; claim" in memory_page and "<b>bold</b> claim" not in memory_page
    cost = client.get(pages[8]).content.decode()
    assert "full-history chars" in cost


def test_a_non_staff_owner_cannot_reach_the_admin() -> None:
    user = make_user()
    make_office(user)
    client = Client()
    client.force_login(user)
    response = client.get("/admin/memory/memoryitem/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert client.get(reverse("admin:office_office_cost")).status_code == 302


def test_the_diff_shows_an_added_and_a_superseded_decision() -> None:
    _, summary = _session_with_folds()
    # Mission 3 reversed mission 1's decision: its fold adds Porto and supersedes Lisbon.
    revision = next(
        r
        for r in summary.revisions.order_by("version")
        if "Porto" in r.after_text and "Porto" not in r.before_text
    )
    html = (
        _staff()
        .get(reverse("admin:summaries_summaryrevision_diff") + f"?a={revision.pk}")
        .content.decode()
    )
    assert 'class="diff-added">+- We decided' in html or "diff-added" in html
    added = [line for line in html.split("<div") if "diff-added" in line]
    removed = [line for line in html.split("<div") if "diff-removed" in line]
    assert any("Porto" in line and "superseded" not in line for line in added)
    assert any("(superseded by #3: Porto)" in line and "Lisbon" in line for line in added)
    assert any("Lisbon" in line and "superseded" not in line for line in removed)


def test_roll_back_restores_the_exact_earlier_state_and_records_a_revision() -> None:
    _, summary = _session_with_folds(16)
    first = summary.revisions.order_by("version").first()
    assert first is not None and summary.version > 1
    client = _staff()
    client.post(reverse("admin:summaries_summaryrevision_rollback", args=[first.pk]))
    summary.refresh_from_db()
    latest = summary.revisions.order_by("-version").first()
    assert latest is not None and latest.kind == "rollback"
    restored = SummaryState.model_validate(summary.state)
    earlier = SummaryState.model_validate(first.after_state)
    assert restored.model_dump(exclude={"dropped"}) == earlier.model_dump(exclude={"dropped"})
    # Missions folded after that revision are recorded, not lost.
    dropped = {d.mission for d in restored.dropped}
    for seq in range(first.folded_through_seq + 1, summary.folded_through_seq + 1):
        assert seq in dropped or (None, seq) in state_refs(restored)
    assert LogEntry.objects.filter(object_id=str(summary.pk)).exists()


def test_refold_in_parallel_blocks_covers_what_the_sequential_fold_covers(settings: Any) -> None:
    _, summary = _session_with_folds(60)
    sequential = SummaryState.model_validate(summary.state)
    covered = {s for _, s in state_refs(sequential)} | {d.mission for d in sequential.dropped}
    client = _staff()
    client.post(
        reverse("admin:summaries_rollingsummary_changelist"),
        {"action": "refold", "_selected_action": [summary.pk]},
    )
    summary.refresh_from_db()
    latest = summary.revisions.order_by("-version").first()
    assert latest is not None and latest.kind == "refold"
    refolded = SummaryState.model_validate(summary.state)
    covered_again = {s for _, s in state_refs(refolded)} | {d.mission for d in refolded.dropped}
    assert covered_again == covered == set(range(1, 53))
    report = summary_verify(
        state=refolded,
        previous=SummaryState(),
        folded=[(None, s) for s in range(1, 53)],
        budget_chars=settings.SUMMARY_BUDGET_CHARS,
    )
    assert report.ok, report.findings
    blocks = [a for a in latest.verifier_report["attempts"] if "block" in a]
    assert len(blocks) == 3


def test_a_block_failing_verification_is_refolded_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    session, summary = _session_with_folds(60)
    real_propose = compaction.fold_propose
    calls: list[list[int]] = []

    def flaky_propose(**kwargs: Any):
        state, report, producer, attempts = real_propose(**kwargs)
        seqs = [m.seq for m in kwargs["missions"]]
        calls.append(seqs)
        if 25 in seqs:
            # This block "loses" the numbers of its missions: the replay check must catch it.
            state = SummaryState(facts=[SummaryItem(text="A vague note", missions=seqs)])
            producer = "flaky-model"
        return state, report, producer, attempts

    monkeypatch.setattr(compaction, "fold_propose", flaky_propose)
    from summaries.compaction import compaction_queue

    compaction_queue(session_id=session.pk, from_scratch=True)
    summary.refresh_from_db()
    latest = summary.revisions.order_by("-version").first()
    assert latest is not None and latest.kind == "refold"
    blocks = [a for a in latest.verifier_report["attempts"] if "block" in a]
    refolded = [b for b in blocks if b["refolded_alone"]]
    assert len(refolded) == 1 and refolded[0]["block"] == [21, 40]
    assert all(not b["refolded_alone"] for b in blocks if b["block"] != [21, 40])
    assert "Client Alpha" in summary.text or "May 2" in summary.text


def test_bulk_actions_change_exactly_the_selected_items() -> None:
    office = make_office()
    items = [
        MemoryItem.objects.create(
            office=office, scope="office", kind="fact", text=f"Note {n}", origin="user"
        )
        for n in range(4)
    ]
    client = _staff()
    url = reverse("admin:memory_memoryitem_changelist")
    client.post(url, {"action": "pin", "_selected_action": [items[0].pk, items[2].pk]})
    client.post(url, {"action": "retire", "_selected_action": [items[1].pk]})
    state = {i.pk: (i.pinned, i.active) for i in MemoryItem.objects.all()}
    assert state == {
        items[0].pk: (True, True),
        items[1].pk: (False, False),
        items[2].pk: (True, True),
        items[3].pk: (False, True),
    }
    assert LogEntry.objects.filter(object_id__in=[str(items[0].pk), str(items[1].pk)]).count() == 2


def test_requeue_sends_back_exactly_the_selected_failed_missions() -> None:
    channel = dm_channel(make_office())
    session = channel.sessions.get()
    add_finished_missions(session, 3)
    Mission.objects.filter(session=session, seq__in=[1, 2]).update(status=MissionStatus.FAILED)
    first = Mission.objects.get(session=session, seq=1)
    _staff().post(
        reverse("admin:missions_mission_changelist"),
        {"action": "requeue", "_selected_action": [first.pk]},
    )
    statuses = dict(Mission.objects.filter(session=session).values_list("seq", "status"))
    assert statuses == {1: "done", 2: "failed", 3: "done"}
