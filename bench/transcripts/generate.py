"""Write the retention transcripts and their questions, deterministically:

    .venv/bin/python bench/transcripts/generate.py          # (re)write the files
    .venv/bin/python bench/transcripts/generate.py --check  # exit 1 if a file is stale

For each transcript NAME: NAME.jsonl (one finished mission a line: {"instruction",
"reply", "at"}, the format of `manage.py replay`) and NAME.questions.json (the planted
facts, where each was planted, and the questions with the answer string the context must
hold). The office conversations (bakery_ko, bikeshop_en, ceramics_mix) come from the
engine (engine.py), the long talks from long_talk.py, both from data/NAME.yaml. The launch
transcripts (launch_en, launch_ko) are kept as written: `--check` reads them for fairness
(every answer only where it was planted, no question giving its answer away)."""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from bench.transcripts import common, engine, long_talk  # noqa: E402

# The office conversations of the meaning evaluation (docs/benchmarks.md), data only.
CONVERSATIONS = ("bakery_ko", "bikeshop_en", "ceramics_mix")
# Written once by a generator since retired; their figures in docs/ stand on these bytes.
KEPT = ("launch_en", "launch_ko")


def transcripts() -> dict[Path, str]:
    """Every generated transcript's files: the long talks (long_talk.py) and the office
    conversations (engine.py)."""
    files: dict[Path, str] = {}
    for talk in (long_talk.load("long_talk_en"), long_talk.load("long_talk_ko")):
        lines = long_talk.build(talk)
        files.update(common.render(talk.name, lines, long_talk.questions_document(talk)))
    for name in CONVERSATIONS:
        files.update(engine.render(engine.load(name)))
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args()
    unfair = [f"{name}: {problem}" for name in KEPT for problem in common.unfair(name)]
    for problem in unfair:
        print(f"unfair: {problem}")
    return sync(transcripts(), check=args.check) or (1 if unfair else 0)


def sync(files: dict[Path, str], *, check: bool) -> int:
    """Write the files whose text changed, or with `check` only name them; 1 if any was
    stale under `check`, else 0."""
    stale = 0
    for path, text in files.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if check:
            print(f"stale: {path.name}")
            stale += 1
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.name}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
