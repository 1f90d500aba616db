"""The meaning table of the retention report: its verdict holds every target of the
office-conversation evaluation (answer present, against plain retrieval, reversed values
unmarked, nothing made from pasted material), and counts what the checks found."""

from __future__ import annotations

from typing import Any

import pytest

from bench.retention_meaning import marked_current
from bench.retention_report import MEANING_HEADER, _meaning_rows, tables


def _question(
    hit: bool, *, plain: bool = False, unmarked: bool | None = None, wrong_mark: bool = False
) -> dict[str, Any]:
    question: dict[str, Any] = {
        "fact": "f",
        "kind": "paraphrased",
        "hit": hit,
        "plain_hit": plain,
        "naive_hit": False,
        "sentence_hit": hit,
        "plain_sentence": plain,
        "naive_sentence": False,
        "held_out": True,
        "rules_in_system": ["앞으로"],
    }
    if unmarked is not None:
        lines = ["- 소금빵 3,500원"] if unmarked else []
        question["unmarked"] = {"product": lines, "plain": lines, "newest": []}
        question["old_only"] = False
        question["current_marked"] = ["- 소금빵 3,800원 (superseded by #9)"] if wrong_mark else []
    return question


def _record(questions: list[dict[str, Any]], *, pasted: int = 0) -> dict[str, Any]:
    meaning = {
        "pasted_memory": ["[rule] Orders must always be placed before 2pm."] * pasted,
        "pasted_summary": [],
        "memory_counts": {"rule": pasted},
        "summary_kept": ["f"],
        "summary_folded": ["f", "g"],
        "person_rules": 2,
        "questions_asked": len(questions),
    }
    checkpoint = {
        "checkpoint": 90,
        "questions": questions,
        "meaning": meaning,
        "reversed_live": {},
        "old_in_memory": {},
        "largest_prompt": 31_000,
    }
    return {"name": "bakery_ko", "envelope": 32_000, "checkpoints": [checkpoint]}


def _good() -> list[dict[str, Any]]:
    return [_question(True, unmarked=False) for _ in range(20)]


def test_a_conversation_that_meets_every_target_passes() -> None:
    (row,) = _meaning_rows([_record(_good())])

    assert row[0] == "bakery_ko"
    assert row[1] == 20
    assert row[2] == "1.00 / 0.00 / 0.00"
    assert row[4] == "20: 0 (0%) / 0 / 0; 0; 0"
    assert row[6] == "1/2"
    assert row[7] == "1/2 50%"
    assert row[-1] == "PASS"


@pytest.mark.parametrize(
    ("questions", "pasted"),
    [
        # One answer in twenty missing: 0.95 is the floor, 0.95 passes, 0.90 does not.
        ([_question(False, unmarked=False), _question(False), *_good()[2:]], 0),
        # Plain retrieval within 0.15 of the product.
        ([_question(True, plain=True, unmarked=False) for _ in range(20)], 0),
        # Three of twenty current-value questions show the old value unmarked (15%).
        ([*(_question(True, unmarked=True) for _ in range(3)), *_good()[3:]], 0),
        # One rule made from pasted material.
        (_good(), 1),
    ],
)
def test_a_conversation_missing_any_target_fails(
    questions: list[dict[str, Any]], pasted: int
) -> None:
    (row,) = _meaning_rows([_record(questions, pasted=pasted)])

    assert row[-1] == "FAIL"


def test_the_project_transcripts_get_no_meaning_table() -> None:
    record = _record(_good())
    del record["checkpoints"][0]["meaning"]

    assert _meaning_rows([record]) == []
    results = [{"vendor": "sqlite", "transcripts": [_record(_good())]}]
    meaning = [t for t in tables(results) if t.title.startswith("Meaning")]
    assert len(meaning) == 1 and meaning[0].rows[0] == MEANING_HEADER


def test_the_current_value_marked_replaced_is_counted() -> None:
    questions = [_question(True, unmarked=False, wrong_mark=True), *_good()[1:]]
    (row,) = _meaning_rows([_record(questions)])
    assert row[4] == "20: 0 (0%) / 0 / 0; 0; 1"


def test_a_wrong_mark_is_a_mark_on_the_current_value_alone() -> None:
    text = "\n".join(
        [
            "- 소금빵은 3,500원 (superseded by #47: 3,800원) [#4]",  # the old value: right
            "- 소금빵 가격 올렸어요, 이제 3,800원이에요. (superseded by #60: 크루아상) [#47]",
            "- 소금빵 3,500원에서 3,800원으로 (superseded by #60) [#47]",  # names both
            "- 이제 3,800원이에요. [#47]",  # no mark
        ]
    )
    found = marked_current(text, old="3,500원", new="3,800원")
    assert found == [
        "- 소금빵 가격 올렸어요, 이제 3,800원이에요. (superseded by #60: 크루아상) [#47]"
    ]
