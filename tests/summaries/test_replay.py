"""`manage.py replay` (summaries/management/commands/replay.py): a history imported
from JSON lines, its missions numbered and folded."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from missions.models import Mission
from office.models import Channel
from summaries.models import RollingSummary

pytestmark = pytest.mark.django_db(transaction=True)


def _write(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def _replay(*args: str) -> tuple[dict[str, int], str]:
    out, err = StringIO(), StringIO()
    call_command("replay", *args, stdout=out, stderr=err)
    return json.loads(out.getvalue().strip().splitlines()[-1]), err.getvalue()


def test_replay_appends_missions_folds_them_and_prints_the_ids(tmp_path: Path) -> None:
    rows: list[object] = [
        {
            "instruction": f"Step {n}: plan part {n}.",
            "reply": f"Part {n} planned.",
            "at": f"2026-03-{n:02d}T09:00:00+00:00",
        }
        for n in range(1, 21)
    ]
    ids, err = _replay(str(_write(tmp_path / "m.jsonl", rows)), "--office", "Acme")
    channel = Channel.objects.get(pk=ids["channel"])
    assert channel.office.name == "Acme" and channel.kind == "dm"
    missions = Mission.objects.filter(session_id=ids["session"]).order_by("seq")
    assert [m.seq for m in missions] == list(range(1, 21))
    assert missions[0].created_at.isoformat().startswith("2026-03-01T09:00")
    assert RollingSummary.objects.get(session_id=ids["session"]).folded_through_seq == 12
    assert "20/20" in err


def test_a_malformed_line_aborts_with_its_number_and_writes_nothing(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "m.jsonl",
        [{"instruction": "a", "reply": "b"}, "{not json", {"instruction": "only"}],
    )
    err = StringIO()
    with pytest.raises(CommandError, match="2 malformed"):
        call_command("replay", str(path), stderr=err)
    assert "line 2" in err.getvalue() and "line 3: reply" in err.getvalue()
    assert Mission.objects.count() == 0


def test_skip_bad_lines_replays_the_rest(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "m.jsonl",
        [{"instruction": "a", "reply": "b"}, "[]", {"instruction": "c", "reply": "d"}],
    )
    ids, err = _replay(str(path), "--skip-bad-lines", "--channel-kind", "project")
    assert "line 2" in err
    assert Channel.objects.get(pk=ids["channel"]).kind == "project"
    assert Mission.objects.filter(session_id=ids["session"]).count() == 2


def test_replay_into_a_new_session_continues_numbering(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "m.jsonl", [{"instruction": "We decided the price is $49.", "reply": "ok"}]
    )
    first, _ = _replay(str(path))
    second, _ = _replay(str(path), "--channel", str(first["channel"]), "--new-session")
    assert second["channel"] == first["channel"] and second["session"] != first["session"]
    summary = RollingSummary.objects.get(session_id=second["session"])
    assert "$49" in summary.text and not summary.carry_over_pending
