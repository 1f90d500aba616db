"""Does a mission's own prompt hold what its instruction asks about a large attached file?

    python bench/attachments.py [--no-record]

Files of the kinds people attach (a price list as CSV, meeting notes, a contract, in Korean
and English), each with facts planted at its beginning, middle and end, and questions
about each fact: some sharing words with it, some paraphrased with none in common (held
out: the pruning was not tuned on them). For every question the files section the prompt
would carry (context.rendering's attachments section, ATTACHMENT_PROMPT_CHARS, with the
passages nearest in meaning as context.selectors finds them) is checked for the fact's
line, beside the same section by terms alone and two plain cuts of the same size: the
file's beginning, and its beginning and end. Then the time to prune a file, at 20,000 and
200,000 chars: the ratio says whether it grows in proportion (one run, one machine:
ratios, not seconds)."""

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from bench.report import Table, emit  # noqa: E402
from context.loading import AttachedFile  # noqa: E402
from context.rendering import _attachments_section  # noqa: E402
from context.selectors import FILE_PASSAGES_BY_MEANING  # noqa: E402
from language import meaning  # noqa: E402
from language.analysis import query_terms  # noqa: E402
from missions.attachments import _passage_vectors, passages_near  # noqa: E402
from missions.models import Attachment  # noqa: E402


@dataclass(frozen=True)
class Case:
    file: str
    fact: str
    question: str
    paraphrased: bool


def _price_list(lang: str, rows: int) -> list[str]:
    if lang == "ko":
        return ["품목코드,품목,원산지,용량,도매가,소매가"] + [
            f"SKU-{n:05d},블렌드 {n}호,콜롬비아,200g,{9000 + n * 10:,}원,{12000 + n * 10:,}원"
            for n in range(rows)
        ]
    return ["sku,product,origin,size,wholesale,retail"] + [
        f"SKU-{n:05d},House blend {n},Colombia,200g,{9 + n % 7}.50 USD,14.00 USD"
        for n in range(rows)
    ]


def _notes(lang: str, paragraphs: int) -> list[str]:
    if lang == "ko":
        return [
            f"{n}. 안건 {n}: 매장 운영 점검. 담당자가 지난주 진행 상황을 공유했고 다음 회의까지 "
            f"세부 일정을 정리하기로 했습니다. 특이 사항 없음."
            for n in range(paragraphs)
        ]
    return [
        f"{n}. Item {n}: store operations review. The owner shared last week's progress and "
        f"will bring a detailed schedule to the next meeting. Nothing unusual."
        for n in range(paragraphs)
    ]


# (lang, kind, the fact's line, a question that shares its words, one that does not)
FACTS = [
    (
        "ko",
        "csv",
        "SKU-77810,흑임자 라떼 베이스,국산,1kg,31,500원,44,000원",
        "흑임자 라떼 베이스 도매가가 얼마죠?",
        "검은깨 음료 원료 납품 단가 알려줘",
    ),
    (
        "en",
        "csv",
        "SKU-77810,Oat milk latte base,Sweden,1kg,31.50 USD,44.00 USD",
        "What is the wholesale price of the oat milk latte base?",
        "How much do we pay for the plant-based coffee mix?",
    ),
    (
        "ko",
        "notes",
        "결정: 가을 팝업스토어는 성수동에서 10월 11일부터 2주간 운영합니다.",
        "가을 팝업스토어 장소랑 기간이 어떻게 됐어요?",
        "시즌 한정 매장은 어디서 언제 열기로 했지?",
    ),
    (
        "en",
        "notes",
        "Decision: the autumn pop-up store runs in Shoreditch for two weeks from October 11.",
        "Where and when does the autumn pop-up store run?",
        "When do we open the temporary seasonal shop, and where?",
    ),
    (
        "ko",
        "contract",
        "제7조(위약금) 을은 납품 지연 1일당 계약금액의 0.3%를 갑에게 지급한다.",
        "납품 지연 위약금 조항이 어떻게 돼요?",
        "배송이 늦으면 상대방이 물어야 하는 돈은?",
    ),
    (
        "en",
        "contract",
        "Section 7 (Penalty). The Supplier pays 0.3% of the contract value per day late.",
        "What does the penalty section say about late delivery?",
        "If shipments come late, how much does the vendor owe us?",
    ),
]


def _file(lang: str, kind: str, fact: str, where: float, size: int) -> str:
    lines = _price_list(lang, size // 55) if kind == "csv" else _notes(lang, size // 110)
    at = max(1, int(len(lines) * where))
    lines.insert(at, fact)
    return "\n".join(lines) + "\n"


def cases(size: int = 80_000) -> list[tuple[Case, str]]:
    out = []
    for lang, kind, fact, asked, paraphrase in FACTS:
        for where in (0.02, 0.5, 0.97):
            text = _file(lang, kind, fact, where, size)
            for question, paraphrased in ((asked, False), (paraphrase, True)):
                out.append((Case(f"{lang}-{kind}@{where}", fact, question, paraphrased), text))
    return out


_VECTORS: dict[str, tuple[bytes, str]] = {}


def _section(text: str, question: str, *, by_meaning: bool = True) -> str:
    """The files section of the prompt of a mission asking `question` about `text`, as
    context.selectors builds it (the passages near in meaning included, when asked)."""
    near: tuple[tuple[int, int], ...] = ()
    if by_meaning and meaning.enabled():
        if text not in _VECTORS:
            _VECTORS[text] = _passage_vectors(text)
        vectors, model = _VECTORS[text]
        kept = Attachment(text=text, vectors=vectors, vector_model=model)
        near = tuple(passages_near(kept, question, limit=FILE_PASSAGES_BY_MEANING))
    file = AttachedFile(name="file.txt", kind="text", size=len(text.encode()), text=text, near=near)
    budget = settings.ATTACHMENT_PROMPT_CHARS
    return _attachments_section([file], budget, query_terms(question)).text


def measure() -> dict[str, dict[str, int]]:
    """Per kind of question: how many were asked, and in how many the fact's line is in
    the files section, the section by terms alone, the head and the head and end."""
    tally: dict[str, dict[str, int]] = {}
    for case, text in cases():
        shown = _section(text, case.question)
        room = len(shown)
        head = text[:room]
        ends = text[: room // 2] + text[-(room - room // 2) :]
        row = tally.setdefault(
            "paraphrased (held out)" if case.paraphrased else "shares words",
            {"questions": 0, "pruned": 0, "terms only": 0, "head": 0, "head and end": 0},
        )
        row["questions"] += 1
        # Quoted as JSON in the prompt: compare the fact as quoted.
        quoted = json.dumps(case.fact, ensure_ascii=False)[1:-1]
        row["pruned"] += quoted in shown
        row["terms only"] += quoted in _section(text, case.question, by_meaning=False)
        row["head"] += case.fact in head
        row["head and end"] += case.fact in ends
    return tally


def timing() -> tuple[float, float]:
    small = _file("ko", "csv", FACTS[0][2], 0.5, 20_000)
    large = _file("ko", "csv", FACTS[0][2], 0.5, 200_000)

    def best(text: str) -> float:
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            _section(text, FACTS[0][3])
            runs.append(time.perf_counter() - start)
        return min(runs)

    return best(small), best(large)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--no-record", action="store_true", help="print the tables; keep docs/ as it is"
    )
    args = parser.parse_args()
    header: list[object] = [
        "questions",
        "asked",
        "files section (terms and meaning)",
        "terms only",
        "the head, same size",
        "head and end, same size",
    ]
    # Each tally's counts are in the order of the columns.
    rows: list[list[object]] = [header, *([name, *row.values()] for name, row in measure().items())]
    small, large = timing()
    speed: list[list[object]] = [
        ["file", "pruning (best of 5)", "× the 20,000-char file"],
        ["20,000 chars", f"{small * 1000:.1f} ms", "1.0"],
        ["200,000 chars", f"{large * 1000:.1f} ms", f"{large / small:.1f}"],
    ]
    emit(
        "attachments",
        [
            Table("The fact's line in the files section of the mission's prompt", rows),
            Table("Pruning time against the file's length", speed),
        ],
        record=not args.no_record,
    )


if __name__ == "__main__":
    main()
