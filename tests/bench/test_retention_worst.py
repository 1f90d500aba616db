"""The retention report's "at the worst checkpoint" rows: a transcript that asks no
question of a kind has no worst checkpoint for it (a dash, no verdict), not a 0 % that
fails; where it asks some, the worst checkpoint is named with its verdict."""

from typing import Any

from bench.retention_report import _worst


def _question(kind: str, hit: bool) -> dict[str, Any]:
    return {"kind": kind, "hit": hit, "naive_hit": False}


def _record(name: str, checkpoints: dict[int, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "name": name,
        "envelope": 32_000,
        "checkpoints": [
            {
                "checkpoint": at,
                "questions": qs,
                "reversed_live": {},
                "old_in_memory": {},
                "largest_prompt": 31_000,
            }
            for at, qs in checkpoints.items()
        ],
    }


def test_a_transcript_without_reused_questions_has_no_worst_checkpoint_for_them() -> None:
    talk = _record("long_talk", {18: [_question("paraphrased", True)]})

    assert _worst([talk], "reused") == ("–", None)
    assert _worst([talk], "para") == ("100% @18", True)


def test_the_worst_checkpoint_is_the_one_with_the_fewest_answers() -> None:
    launch = _record(
        "launch",
        {
            30: [_question("reused", True), _question("reused", True)],
            60: [_question("reused", True), _question("reused", False)],
        },
    )
    talk = _record("long_talk", {18: [_question("paraphrased", True)]})

    assert _worst([launch, talk], "reused") == ("50% @60 launch", False)


def _probed(product: bool, plain: bool, sentence: bool = True) -> dict[str, Any]:
    return {
        "kind": "paraphrased",
        "hit": product,
        "sentence_hit": product and sentence,
        "plain_hit": plain,
        "plain_sentence": plain,
        "naive_hit": False,
        "naive_sentence": False,
    }


def test_the_plain_retrieval_row_passes_only_with_the_margin_and_is_recorded() -> None:
    from bench.retention_report import REFERENCE_HEADER, _reference_rows, tables

    # 19 of 20 against plain's 18 of 20: +0.05, the margin exactly.
    ahead = _record(
        "ahead", {28: [_probed(True, i < 18) for i in range(19)] + [_probed(False, False)]}
    )
    # 19 of 20 against 19 of 20: not ahead.
    level = _record(
        "level", {28: [_probed(True, True) for _ in range(19)] + [_probed(False, False)]}
    )
    for record in (ahead, level):
        record["prefix_shares"] = [0.1, 0.3]

    rows = _reference_rows([ahead, level])

    assert rows[0][:5] == ("ahead", 20, "0.95/0.95", "0.90/0.90", "0.00/0.00")
    assert str(rows[0][-1]).endswith("PASS") and str(rows[1][-1]).endswith("FAIL")
    assert rows[0][5] == "0.20"
    [_, against] = tables([{"vendor": "sqlite", "transcripts": [ahead, level]}])
    assert against.rows[0] == REFERENCE_HEADER and list(against.rows[1:]) == rows
