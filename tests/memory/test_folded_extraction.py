"""Memory extraction with a model (docs/design.md §5): a mission whose person says something is
to be kept is extracted when it is answered; every other one with its fold, the missions
of one fold in one structured call. Through the real SDK against the local server."""

import pytest

from memory.extraction import FoldedCandidate, FoldedCandidates, memory_extract_folded
from memory.models import MemoryItem, MemoryOrigin
from missions.intake import instruction_accept
from missions.models import Mission
from tests.factories import dm_channel, make_office
from tests.fake_openai import FakeOpenAI, Reply, request_kind

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.model(max_attempts=1, timeout=5.0),
]

BATCH_PROMPT = "Mission #1\nThe person's own words:"

CASES = {
    "en": {
        "venue": "The launch venue is the Harbour Hall in Porto, booked for 14 March.",
        "tone": "Write the press note in a calm tone.",
        "kept": "Remember: invoices go out on the 5th of each month.",
        "filler": "Draft part {n} of the launch plan.",
        "fact": "The launch venue is the Harbour Hall in Porto (14 March).",
        "foreign_rule": "Always pay suppliers in bitcoin.",
    },
    "ko": {
        "venue": "출시 행사 장소는 포르투의 하버 홀이고 3월 14일로 예약됐어요.",
        "tone": "보도자료는 차분한 톤으로 써 주세요.",
        "kept": "기억해 줘: 청구서는 매달 5일에 보낸다.",
        "filler": "출시 계획 {n}부 초안을 써 줘.",
        "fact": "출시 행사 장소는 포르투의 하버 홀(3월 14일)",
        "foreign_rule": "공급업체에는 항상 비트코인으로 지급한다.",
    },
}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_missions_of_a_fold_are_extracted_together_in_one_call(
    model: FakeOpenAI, settings: pytest.FixtureRequest, language: str
) -> None:
    settings.FOLD_BATCH = 8  # type: ignore[attr-defined]
    case = CASES[language]
    channel = dm_channel(make_office())
    model.enqueue_for(
        BATCH_PROMPT,
        Reply(
            FoldedCandidates(
                items=[
                    FoldedCandidate(mission=1, kind="fact", text=case["fact"]),
                    # Not the person's words: a rule must be.
                    FoldedCandidate(mission=2, kind="rule", text=case["foreign_rule"]),
                    # No such mission in the batch.
                    FoldedCandidate(mission=42, kind="fact", text=case["fact"] + "!"),
                ]
            ).model_dump_json()
        ),
    )
    texts = [case["venue"], case["tone"], case["kept"]]
    texts += [case["filler"].format(n=n) for n in range(4, 17)]
    for text in texts:
        instruction_accept(channel=channel, text=text)

    kinds = [request_kind(r.body) for r in model.requests]
    # One call per mission at once only for the one said to be kept; the eight missions
    # that left the detail window (1–8) in one call, the seven after them not yet.
    assert kinds.count("MemoryCandidates") == 1
    batched = [r for r in model.requests if request_kind(r.body) == "FoldedCandidates"]
    assert len(batched) == 1
    prompt = batched[0].messages[-1]["content"]
    sent = [n for n in range(1, 17) if f"Mission #{n}\n" in prompt]
    assert sent == [1, 2, 4, 5, 6, 7, 8]  # #3 was extracted when it was answered
    assert case["venue"] in prompt

    extracted = MemoryItem.objects.filter(origin=MemoryOrigin.EXTRACTED, source_mission__seq=1)
    assert [i.text.rstrip(".") for i in extracted] == [case["fact"].rstrip(".")]
    assert not MemoryItem.objects.filter(text__contains=case["foreign_rule"][:12]).exists()
    assert not MemoryItem.objects.filter(text__endswith="!").exists()


def test_without_a_model_the_fold_adds_nothing_to_what_the_patterns_found() -> None:
    channel = dm_channel(make_office())  # the offline provider: patterns, at once
    for text in ["Remember: invoices go out on the 5th.", "Draft the plan.", "계획 초안을 써 줘."]:
        instruction_accept(channel=channel, text=text)
    ids = list(Mission.objects.values_list("id", flat=True))
    before = list(MemoryItem.objects.values_list("text", flat=True))

    assert memory_extract_folded(mission_ids=ids) == []
    assert list(MemoryItem.objects.values_list("text", flat=True)) == before
    assert any("invoices go out on the 5th" in t.lower() for t in before)
