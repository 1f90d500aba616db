"""What bench/ shares: the generators write every generated retention transcript byte for
byte as committed, every committed transcript is fair to its questions, and every
end-to-end benchmark reads --runtimes and the run options the same way."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bench import cold_start, concurrency
from bench.transcripts import common
from bench.transcripts.generate import CONVERSATIONS, HERE, KEPT, transcripts


def test_every_generated_transcript_is_rebuilt_byte_for_byte() -> None:
    files = transcripts()

    assert sorted(path.name for path in files) == sorted(
        f"{name}{suffix}"
        for name in ("long_talk_en", "long_talk_ko", *CONVERSATIONS)
        for suffix in (".jsonl", ".questions.json")
    )
    for path, text in files.items():
        assert path.parent == HERE
        assert path.read_text(encoding="utf-8") == text, f"{path.name} differs"
    # Both languages really are there: Korean text in the Korean transcripts.
    korean = files[HERE / "long_talk_ko.jsonl"] + files[HERE / "bakery_ko.jsonl"]
    assert sum("가" <= ch <= "힣" for ch in korean) > 10_000


@pytest.mark.parametrize("name", [*KEPT, "long_talk_en", "long_talk_ko", *CONVERSATIONS])
def test_every_committed_transcript_is_fair_to_its_questions(name: str) -> None:
    assert common.unfair(name) == []


def test_an_answer_out_of_place_or_given_away_is_found(tmp_path: Path) -> None:
    for suffix in (".jsonl", ".questions.json"):
        shutil.copy(HERE / f"launch_ko{suffix}", tmp_path / f"launch_ko{suffix}")
    document = json.loads((tmp_path / "launch_ko.questions.json").read_text("utf-8"))
    fact = document["facts"][0]
    lines = (tmp_path / "launch_ko.jsonl").read_text("utf-8").splitlines()
    elsewhere = 1 if fact["planted"] != 1 else 2
    mission = json.loads(lines[elsewhere - 1])
    mission["reply"] += f" ({fact['answer']})"
    lines[elsewhere - 1] = json.dumps(mission, ensure_ascii=False)
    (tmp_path / "launch_ko.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    fact["questions"][0]["text"] += f" {fact['answer']}?"
    (tmp_path / "launch_ko.questions.json").write_text(json.dumps(document), "utf-8")

    assert common.unfair("launch_ko", tmp_path) == [
        f"#{elsewhere} holds {fact['answer']!r}, planted elsewhere",
        f"{fact['id']}: {fact['questions'][0]['text']!r} gives its answer away",
    ]


@pytest.mark.parametrize("module", [cold_start, concurrency])
def test_runtimes_and_run_options_are_read_alike_by_every_benchmark(module: Any) -> None:
    parse_args = module.parse_args

    both = parse_args(["--runtimes", "both", "--no-record", "--timeout", "7"])
    assert both.runtime_list == ["embedded", "production"]
    assert both.no_record is True
    assert both.timeout == 7.0
    assert both.instruction_timeout == 120.0
    assert parse_args(["--runtimes", "production"]).runtime_list == ["production"]
    with pytest.raises(SystemExit) as exc:
        parse_args(["--runtimes", "embedded,docker"])
    assert exc.value.code == 2
