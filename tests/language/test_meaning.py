"""The meaning layer's model (language.meaning): vectors, similarity across words and
languages, the same-subject check, and the switch that turns it off."""

import threading

import numpy as np
import pytest
from django.test import override_settings

from language import meaning


def test_it_embeds_texts_as_unit_float32_rows_in_batches() -> None:
    texts = [f"원두 {n}kg 발주 / order {n}" for n in range(meaning.EMBED_BATCH + 3)]
    vectors = meaning.embed(texts)
    assert vectors.shape == (len(texts), meaning.dimensions())
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    # Batching changes nothing: the last text alone gives its row of the batch.
    assert np.allclose(meaning.embed(texts[-1:])[0], vectors[-1], atol=1e-4)


def test_loading_the_model_keeps_the_process_blas_to_one_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A process starts with a BLAS thread per CPU; with two threads spinning on the one CPU
    # a pinned server keeps, each embedding on the reply path took ~70 times as long.
    from threadpoolctl import threadpool_info, threadpool_limits

    threadpool_limits(limits=2, user_api="blas")
    assert {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"} == {2}
    monkeypatch.setattr(meaning, "_model", None)
    meaning.embed(["원두 발주 / bean order"])
    blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert blas, "numpy's BLAS is not visible to threadpoolctl"
    assert {lib["num_threads"] for lib in blas} == {1}


def test_a_blank_text_is_similar_to_nothing() -> None:
    vectors = meaning.embed(["", "   ", "라떼 가격"])
    assert not vectors[0].any() and not vectors[1].any()
    assert meaning.similarity("", "라떼 가격") == 0.0


@pytest.mark.parametrize(
    ("text", "translation", "unrelated"),
    [
        (
            "원두 납품은 매주 화요일이에요.",
            "Coffee beans are delivered every Tuesday.",
            "The printer is out of toner.",
        ),
        (
            "The photographer costs $1,800.",
            "사진작가 비용은 1,800달러예요.",
            "회의실 예약은 내일 해요.",
        ),
    ],
)
def test_a_sentence_is_closer_to_its_translation_than_to_another_subject(
    text: str, translation: str, unrelated: str
) -> None:
    assert meaning.similarity(text, translation) > meaning.similarity(text, unrelated) + 0.2


def test_stored_bytes_give_back_the_vector() -> None:
    vector = meaning.embed(["흑임자 라떼 6,500원"])[0]
    stored = meaning.to_bytes(vector)
    assert len(stored) == 2 * meaning.dimensions()
    assert np.allclose(meaning.from_bytes(stored), vector, atol=1e-3)


def test_a_question_is_embedded_once_per_text() -> None:
    first = meaning.embed_query("사진작가한테 얼마 주기로 했죠?")
    assert meaning.embed_query("사진작가한테 얼마 주기로 했죠?") is first
    assert not first.flags.writeable


def test_threads_share_one_model() -> None:
    seen: list[object] = []
    vectors: list[np.ndarray] = []

    def work() -> None:
        vectors.append(meaning.embed(["가게 임대 계약"])[0])
        seen.append(meaning.loaded_model())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(model) for model in seen}) == 1
    assert all(np.allclose(v, vectors[0], atol=1e-5) for v in vectors)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("오픈 행사는 5월 2일에 해요.", "오픈 행사 5/9로 밀렸대요."),
        ("The retainer is $4,000 a month.", "We agreed to lower the monthly retainer to $3,500."),
        ("라떼 가격은 6,500원이에요.", "라떼 값 올렸어요, 이제 7,000원이에요."),
    ],
)
def test_a_new_value_of_the_same_thing_is_the_same_subject(a: str, b: str) -> None:
    assert meaning.same_subject(a, b)
    assert meaning.same_subject(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The site launches on June 11.", "The invoice is due on June 11."),
        ("원두 납품은 화요일 오전이에요.", "직원 회식은 화요일 저녁이에요."),
        ("The retainer is $4,000 a month.", "The new laptop costs $4,000."),
    ],
)
def test_the_same_value_of_another_thing_is_not_the_same_subject(a: str, b: str) -> None:
    assert not meaning.same_subject(a, b)


def test_values_do_not_decide_the_subject() -> None:
    same_value = meaning.subject_similarity(
        "세무 신고는 5월 2일까지예요.", "오픈 행사는 5월 2일에 해요."
    )
    new_value = meaning.subject_similarity(
        "오픈 행사는 5월 2일에 해요.", "오픈 행사는 5월 9일에 해요."
    )
    assert new_value > 0.95 > same_value


@override_settings(MEANING_MODEL="off")
def test_off_it_loads_nothing_and_compares_words() -> None:
    assert not meaning.enabled()
    meaning.warm_up()
    with pytest.raises(RuntimeError):
        meaning.embed(["라떼"])
    assert meaning.same_subject("The brand color is coral.", "The brand color is now teal.")
    assert not meaning.same_subject("The site launches on June 11.", "Launch moved to 6/18.")
