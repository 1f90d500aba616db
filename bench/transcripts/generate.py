"""Write the retention transcripts and their questions, deterministically:

    .venv/bin/python bench/transcripts/generate.py          # (re)write the files
    .venv/bin/python bench/transcripts/generate.py --check  # exit 1 if a file is stale

For each transcript NAME: NAME.jsonl (one finished mission a line: {"instruction",
"reply", "at"}, the format of `manage.py replay`) and NAME.questions.json (the planted
facts, where each was planted, and three questions per fact with the answer string the
context must hold)."""

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from bench.transcripts import launch_en, launch_ko  # noqa: E402
from bench.transcripts.common import Spec, build, questions_document  # noqa: E402

SPECS: list[Spec] = [launch_en.SPEC, launch_ko.SPEC]


def render(spec: Spec) -> dict[Path, str]:
    lines = build(spec)
    jsonl = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    questions = json.dumps(questions_document(spec), ensure_ascii=False, indent=2) + "\n"
    return {HERE / f"{spec.name}.jsonl": jsonl, HERE / f"{spec.name}.questions.json": questions}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args()
    files: dict[Path, str] = {}
    for spec in SPECS:
        files.update(render(spec))
    return sync(files, check=args.check)


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
