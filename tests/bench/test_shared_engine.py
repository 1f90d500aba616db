"""What bench/ shares: one transcript engine writes every retention transcript (English and
Korean, launch and long talk) byte for byte as committed, and every end-to-end benchmark
reads --runtimes and the run options the same way."""

from __future__ import annotations

from typing import Any

import pytest

from bench import cold_start, concurrency
from bench.transcripts.generate import HERE, transcripts


def test_every_transcript_is_rebuilt_byte_for_byte_by_the_one_generator() -> None:
    files = transcripts()

    assert sorted(path.name for path in files) == sorted(
        f"{name}{suffix}"
        for name in (
            "launch_en",
            "launch_ko",
            "long_talk_en",
            "long_talk_ko",
            "bakery_ko",
            "bikeshop_en",
            "ceramics_mix",
        )
        for suffix in (".jsonl", ".questions.json")
    )
    for path, text in files.items():
        assert path.parent == HERE
        assert path.read_text(encoding="utf-8") == text, f"{path.name} differs"
    # Both languages really are there: Korean text in the Korean transcripts.
    korean = files[HERE / "long_talk_ko.jsonl"] + files[HERE / "launch_ko.jsonl"]
    assert sum("가" <= ch <= "힣" for ch in korean) > 10_000


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
