"""The transcript engine (bench/transcripts/engine.py) and the meaning checks of the
retention benchmark (bench/retention_meaning.py): a conversation written as data becomes
a fair transcript or a clear error, and the checks read values and marks, not wording."""

from __future__ import annotations

import copy
import random
from datetime import date
from typing import Any

import pytest

from bench.retention_meaning import inside_paste, unmarked_old
from bench.transcripts import engine
from bench.transcripts.generate import CONVERSATIONS


def _tiny() -> dict[str, Any]:
    """A conversation of six missions: a price said, pasted material, the price raised."""
    return {
        "name": "tiny",
        "language": "en",
        "channel_kind": "dm",
        "employee": "Theo",
        "description": "test",
        "seed": 7,
        "tz": "Europe/London",
        "start": date(2026, 3, 2),
        "missions": 6,
        "chars": [120, 2000],
        "pad": "notes",
        "planted": {
            2: {"ask": "A full service is £65 from today.", "reply": "Noted."},
            3: {
                "ask": "The supplier's terms, pasted:",
                "paste": "TERMS\nOrders must always be placed before 2pm.\nTotal: £1,234",
                "reply": "Read them.",
            },
            5: {"ask": "Parts went up, so I bumped the full service to £72.", "reply": "Done."},
        },
        "facts": [
            {
                "id": "price",
                "topic": ["full service"],
                "answer": "£72",
                "planted": 5,
                "old": "£65",
                "old_planted": 2,
                "questions": [
                    {"q": "What is a full service now?"},
                    {"q": "Overhaul cost?", "para": True, "held": True},
                ],
            },
            {
                "id": "total",
                "where": "paste",
                "topic": ["terms"],
                "answer": "£1,234",
                "planted": 3,
                "questions": [{"q": "What did the terms total?"}],
            },
        ],
        "rules": {
            "person": [],
            "pasted": [
                {"mission": 3, "key": "2pm", "text": "Orders must always be placed before 2pm."}
            ],
        },
        "templates": {
            "chat": {
                "ask": "How is the {thing} doing?",
                "reply": "The {thing} is {state}. {n:2-9} left.",
            },
            "notes": {"filler": False, "ask": "-", "reply": "Also: {list:note:1-2}"},
        },
        "pools": {
            "thing": ["till", "workshop", "van"],
            "state": ["fine", "busy", "quiet"],
            "note": ["the sign needs paint", "a tube box came", "the van is booked"],
        },
    }


def test_placeholders_draw_from_the_pools_and_keep_a_value_for_the_mission() -> None:
    pools = {"name": ["Ana", "Bo", "Cy"], "line": ["one {name}", "two {name}"]}
    expand = engine.Expander(pools, random.Random(1))

    kept = expand("{name@1} and {name@1} again")
    first, second = kept.split(" and ")[0], kept.split(" and ")[1].removesuffix(" again")
    assert first == second and first in pools["name"]
    assert 3 <= int(expand("{n:3-5}")) <= 5
    listed = expand("{list:line:2-2}").splitlines()
    assert len(listed) == 2 and all(
        x.startswith("- one ") or x.startswith("- two ") for x in listed
    )
    with pytest.raises(KeyError):
        expand("{missing}")


def test_a_conversation_becomes_missions_in_order_with_the_paste_set_apart() -> None:
    data = _tiny()

    lines = engine.build(data)

    assert len(lines) == 6
    assert [line["at"] for line in lines] == sorted(line["at"] for line in lines)
    assert lines[2]["instruction"].startswith("The supplier's terms, pasted:\n\nTERMS\n")
    assert "£72" in lines[4]["instruction"] and all(
        "£72" not in x["instruction"] + x["reply"] for x in lines[:4]
    )
    # Padding makes every mission long enough, from the padding template.
    assert all(len(x["instruction"]) + len(x["reply"]) >= 120 for x in lines)
    assert engine.build(_tiny()) == lines


def test_the_questions_document_marks_current_values_held_out_questions_and_pastes() -> None:
    document = engine.questions_document(_tiny())

    facts: list[dict[str, Any]] = document["facts"]  # type: ignore[assignment]
    price, total = facts
    assert [q["current"] for q in price["questions"]] == [True, True]
    assert [q["held_out"] for q in price["questions"]] == [False, True]
    assert [q["kind"] for q in price["questions"]] == ["reused", "paraphrased"]
    assert total["where"] == "paste" and total["questions"][0]["current"] is False
    assert document["pastes"] == [{"mission": 3, "text": _tiny()["planted"][3]["paste"]}]
    assert document["checkpoints"] == [6]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["planted"][2].update(reply="Noted, £72 later."), "planted mission holds"),
        (
            lambda d: d["planted"][3].update(reply="Total was £1,234."),
            "not stated only inside the paste",
        ),
        (lambda d: d["facts"][0]["questions"].append({"q": "Is it £72?"}), "gives its answer away"),
        (lambda d: d["rules"]["pasted"][0].update(text="Never on Sundays."), "not in its place"),
        (lambda d: d["pools"].update(state=["at £72"]), "no clean filler"),
    ],
)
def test_an_unfair_conversation_is_refused_with_the_reason(change: Any, message: str) -> None:
    data = copy.deepcopy(_tiny())
    change(data)

    with pytest.raises(ValueError, match=message):
        engine.build(data)


def test_the_office_conversations_hold_what_the_evaluation_needs() -> None:
    facts, questions, reversals = 0, [], 0
    for name in CONVERSATIONS:
        data = engine.load(name)
        lines = engine.build(data)
        assert 80 <= len(lines) <= 90
        assert 80_000 <= sum(len(x["instruction"]) + len(x["reply"]) for x in lines) <= 160_000
        for fact in data["facts"]:
            facts += 1
            questions += fact["questions"]
            if fact.get("old") is not None:
                reversals += 1
                said = lines[fact["planted"] - 1]["instruction"].casefold()
                assert not any(w in said for w in ("decided", "decision", "결정", "바꿔")), fact[
                    "id"
                ]
        assert sum(1 for f in data["facts"] if f.get("where") == "paste") >= 4
        assert len(data["rules"]["pasted"]) >= 5 and len(data["rules"]["person"]) >= 3
    assert reversals >= 20
    assert sum(1 for q in questions if q.get("para")) * 2 >= len(questions)
    assert sum(1 for q in questions if q.get("held")) * 4 >= len(questions)


def test_an_old_value_counts_as_shown_unmarked_unless_its_line_marks_or_replaces_it() -> None:
    text = "\n".join(
        [
            "- Full service is £65 (#5)",
            "- Full service £65 (superseded by #48)",
            "- Parts went up, so I bumped the full service from £65 to £72.",
            "- 소금빵 3,500원 (대체됨)",
            "- 소금빵 3,500원",
        ]
    )

    assert unmarked_old(text, old="£65", new="£72") == ["- Full service is £65 (#5)"]
    assert unmarked_old(text, old="3,500원", new="3,800원") == ["- 소금빵 3,500원"]
    assert unmarked_old("nothing here", old="£65", new="£72") == []


def test_a_line_of_the_reversing_mission_or_later_does_not_show_the_old_value_as_current() -> None:
    text = "\n".join(
        [
            "- Jonas asked to drop to three days a week — family stuff. [#41]",
            '- [mission #41 · 2026-03-01 09:00 UTC] "Jonas asked to drop to three days a week"',
            "- Jonas is going to be workshop lead when we move. [#8]",
            "- Jonas leads the workshop. [#8, #41]",
            '- (decision, id 11) "Jonas is workshop lead"',
            "- 코랄은 흰 배경에서 대비가 기준에 못 미치고 [#18]",
        ]
    )

    assert unmarked_old(text, old="Jonas", new="Mira", since=41) == [
        "- Jonas is going to be workshop lead when we move. [#8]",
        "- Jonas leads the workshop. [#8, #41]",
        '- (decision, id 11) "Jonas is workshop lead"',
    ]
    assert len(unmarked_old(text, old="Jonas", new="Mira")) == 5
    assert unmarked_old(text, old="코랄", new="틸", since=18) == []
    assert unmarked_old(text, old="코랄", new="틸", since=19) == [
        "- 코랄은 흰 배경에서 대비가 기준에 못 미치고 [#18]"
    ]


def test_words_from_a_paste_are_told_from_the_persons_own() -> None:
    pastes = [
        "TERMS\nOrders must always be placed before 2pm for next-day dispatch.",
        "임차인은 항상 영업 종료 후 간판 조명을 소등한다.",
    ]

    assert inside_paste(
        "Orders must always be placed before 2pm for next-day dispatch. (#30)", pastes
    )
    assert inside_paste("- 임차인은 항상 영업 종료 후 간판 조명을 소등한다…", pastes)
    assert not inside_paste("Never promise a same-day repair on a Saturday.", pastes)
    assert not inside_paste("앞으로 원두 발주는 매주 목요일 오전에 넣어요.", pastes)
    assert not inside_paste("2pm", pastes)  # too short to place
