"""A fold the verifier refuses even as the deterministic fold commits nothing (a fold
never loses a mission), and is not silent: the summary records when and why, the admin
shows it, the sweeper does not queue the same refusal again, and the next fold that
lands clears it."""

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from summaries import compaction, folding
from summaries.folding import FoldRefused
from summaries.models import RollingSummary
from summaries.schemas import SummaryItem, SummaryState
from summaries.services import summary_fold, summary_sweep_lagging
from tests.factories import add_finished_missions, dm_channel, make_office, make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _batches_of_eight(settings: Any) -> None:
    settings.FOLD_BATCH = 8
    settings.DETAIL_MISSIONS = 8


def _waiting_session(settings: Any) -> Any:
    """A session whose first 8 missions have left the window, not folded yet."""
    session = dm_channel(make_office()).sessions.get()
    settings.FOLD_BATCH = 100
    add_finished_missions(session, 16)
    settings.FOLD_BATCH = 8
    return session


def _losing_fold(**_: Any) -> SummaryState:
    return SummaryState()  # cites no mission: coverage fails


def _admin_page(summary: RollingSummary, lang: str) -> str:
    user = make_user()
    user.is_staff = user.is_superuser = True
    user.save()
    client = Client(HTTP_ACCEPT_LANGUAGE=lang)
    client.force_login(user)
    url = reverse("admin:summaries_rollingsummary_change", args=[summary.pk])
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_a_refused_fold_is_recorded_shown_left_by_the_sweeper_and_cleared_by_the_next(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _waiting_session(settings)
    monkeypatch.setattr(folding, "extractive_fold", _losing_fold)
    with pytest.raises(FoldRefused):
        summary_fold(session_id=session.pk)
    summary = RollingSummary.objects.get(session=session)
    assert summary.folded_through_seq == 0 and summary.version == 0
    assert summary.fold_refused_at is not None
    assert summary.fold_findings and summary.fold_findings[0].startswith("coverage: missions")
    assert "coverage: missions" in _admin_page(summary, "en")
    assert "접기 거부 시각" in _admin_page(summary, "ko")
    # The same missions would be refused again: the sweeper leaves the session alone.
    assert summary_sweep_lagging() == 0
    monkeypatch.undo()
    summary_fold(session_id=session.pk)
    summary.refresh_from_db()
    assert summary.folded_through_seq == 8
    assert summary.fold_refused_at is None and summary.fold_findings == []


def test_the_sweeper_still_queues_a_lagging_fold_nothing_refused(settings: Any) -> None:
    session = _waiting_session(settings)
    assert summary_sweep_lagging() == 1
    assert RollingSummary.objects.get(session=session).folded_through_seq == 8


def test_a_refused_merge_of_a_compaction_is_recorded(settings: Any) -> None:
    session = _waiting_session(settings)
    summary, _ = RollingSummary.objects.get_or_create(session=session)
    # A block whose item states an amount its mission never gave: evidence fails.
    invented = SummaryState(facts=[SummaryItem(text="예산은 987,654원이에요.", missions=[1])])
    block = {
        "seqs": [1, 2, 3],
        "state": invented.model_dump(mode="json"),
        "producer": "x",
        "refolded_alone": False,
    }
    with pytest.raises(FoldRefused):
        compaction.compaction_merge(
            session_id=session.pk,
            results=[block],
            version=summary.version,
            through=3,
            from_scratch=False,
        )
    summary.refresh_from_db()
    assert summary.folded_through_seq == 0 and summary.fold_refused_at is not None
    assert any("987,654" in f for f in summary.fold_findings), summary.fold_findings


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(
            "로고는 파란색으로 결정했어요.",
            "로고를 초록색으로 바꿨어요. 로고는 파란색 말고 초록색이에요.",
            id="ko",
        ),
        pytest.param(
            "We decided the price is $20.",
            "We changed the price to $25. So the price is $25, not $20.",
            id="en",
        ),
    ],
)
def test_a_channel_where_a_change_is_said_twice_keeps_folding(old: str, new: str) -> None:
    # The mission that restates its change used to fail its fold's verification, and with
    # it every later fold of the channel.
    def text(n: int) -> tuple[str, str]:
        said = {1: old, 3: new}.get(n, f"Task {n}: prepare brief {n} for Client Alpha.")
        return said, f"Done {n}."

    session = dm_channel(make_office()).sessions.get()
    add_finished_missions(session, 32, text=text)
    summary = RollingSummary.objects.get(session=session)
    assert summary.folded_through_seq == 24 and summary.fold_refused_at is None
    state = SummaryState.model_validate(summary.state)
    [retired] = [d for d in state.decisions if d.superseded]
    assert retired.text == old and retired.superseded_by == [3]
