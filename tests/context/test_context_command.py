"""`manage.py context` (context/management/commands/context.py): what a prompt would hold,
as a table or as JSON, for one instruction or many."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.summaries.test_replay import _replay, _write

pytestmark = pytest.mark.django_db(transaction=True)


def test_context_json_has_the_stable_keys(tmp_path: Path) -> None:
    ids, _ = _replay(
        str(
            _write(
                tmp_path / "m.jsonl",
                [{"instruction": f"Task {n}", "reply": f"Done {n}"} for n in range(1, 11)],
            )
        )
    )
    out = StringIO()
    call_command("context", str(ids["channel"]), "--instruction", "Task 3?", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert set(report) == {
        "sections",
        "total_chars",
        "stable_prefix_chars",
        "stable_messages",
        "envelope",
        "budget",
        "messages",
    }
    assert report["budget"]["envelope"] == report["envelope"]
    names = [s["name"] for s in report["sections"]]
    assert names == ["system", "summary", "pending", "recent", "memory", "recall", "current"]
    for section in report["sections"]:
        assert set(section) == {
            "name",
            "chars",
            "budget",
            "mission_seqs",
            "mission_labels",
            "mission_refs",
            "memory_ids",
            "trimmed",
            "kept",
            "text",
        }
        assert section["chars"] == len(section["text"])
    recent = next(s for s in report["sections"] if s["name"] == "recent")
    assert recent["mission_seqs"] == list(range(3, 11)) and recent["budget"] == 20_000
    assert [(k["seq"], k["kept"]) for k in recent["kept"]] == [(n, "full") for n in range(3, 11)]


def test_context_reads_many_instructions_in_one_process(tmp_path: Path) -> None:
    ids, _ = _replay(str(_write(tmp_path / "m.jsonl", [{"instruction": "a", "reply": "b"}])))
    instructions = tmp_path / "i.txt"
    instructions.write_text("first question\nsecond question\n")
    out = StringIO()
    call_command(
        "context",
        str(ids["channel"]),
        "--instructions-file",
        str(instructions),
        "--json",
        stdout=out,
    )
    reports = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(reports) == 2
    assert "second question" in reports[1]["messages"][-1]["content"]


def test_context_table_and_a_missing_channel(tmp_path: Path) -> None:
    ids, _ = _replay(str(_write(tmp_path / "m.jsonl", [{"instruction": "a", "reply": "b"}])))
    out = StringIO()
    call_command("context", str(ids["channel"]), stdout=out)
    assert "recent" in out.getvalue() and "20000" in out.getvalue()
    with pytest.raises(CommandError, match="no channel"):
        call_command("context", "999999")
