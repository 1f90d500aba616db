"""The retention report's "at the worst checkpoint" rows: a transcript that asks no
question of a kind has no worst checkpoint for it (a dash, no verdict), not a 0 % that
fails; where it asks some, the worst checkpoint is named with its verdict."""

from typing import Any

from bench.retention import _worst


def _question(kind: str, hit: bool) -> dict[str, Any]:
    return {"kind": kind, "hit": hit, "naive_hit": False}


def _record(name: str, checkpoints: dict[int, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "name": name,
        "checkpoints": [{"checkpoint": at, "questions": qs} for at, qs in checkpoints.items()],
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
