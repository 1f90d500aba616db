"""The JSON schemas sent for folds (SummaryState) and memory extraction (MemoryCandidates,
and FoldedCandidates for the missions of one fold) are ones OpenAI's strict structured
output accepts: no `default` anywhere, every property required, `additionalProperties:
false` on every object. Checked on the request body the real openai SDK sends to the local
OpenAI-compatible server, not on our own rendering of the schema (the SDK builds it with
`to_strict_json_schema`, which keeps non-null defaults)."""

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from llm.openai_provider import OpenAIProvider
from memory.extraction import (
    FoldedCandidate,
    FoldedCandidates,
    MemoryCandidate,
    MemoryCandidates,
    propose_candidates,
)
from summaries.folding import fold_propose
from summaries.schemas import Decision, DroppedMission, FoldMission, SummaryItem, SummaryState
from tests.fake_openai import FakeOpenAI, Reply


@pytest.fixture
def provider(fake_openai: FakeOpenAI) -> Iterator[OpenAIProvider]:
    built = fake_openai.provider()
    yield built
    built.close()


def _schema_nodes(node: Any, path: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object in a JSON schema, with where it is (property names are not
    schema keywords: a property called "default" would not be one)."""
    if not isinstance(node, dict):
        return
    yield path, node
    for name, sub in (node.get("properties") or {}).items():
        yield from _schema_nodes(sub, f"{path}.properties.{name}")
    for name, sub in (node.get("$defs") or {}).items():
        yield from _schema_nodes(sub, f"{path}.$defs.{name}")
    if isinstance(node.get("items"), dict):
        yield from _schema_nodes(node["items"], f"{path}.items")
    for keyword in ("anyOf", "allOf", "oneOf"):
        for index, sub in enumerate(node.get(keyword) or []):
            yield from _schema_nodes(sub, f"{path}.{keyword}[{index}]")


def assert_strict(schema: dict[str, Any]) -> None:
    objects = 0
    for path, node in _schema_nodes(schema):
        assert "default" not in node, f"{path} has a default: {node['default']!r}"
        if node.get("type") == "object" or "properties" in node:
            objects += 1
            properties = list(node.get("properties") or {})
            assert node.get("required") == properties, f"{path}: not every property required"
            assert node.get("additionalProperties") is False, f"{path}: additionalProperties"
    assert objects, "no object in the schema"


def _sent_schema(fake_openai: FakeOpenAI, name: str) -> dict[str, Any]:
    [request] = [
        r
        for r in fake_openai.requests
        if r.body.get("response_format", {}).get("json_schema", {}).get("name") == name
    ]
    response_format = request.body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["strict"] is True
    return response_format["json_schema"]["schema"]


def test_the_fold_schema_the_sdk_sends_is_strict(
    fake_openai: FakeOpenAI, provider: OpenAIProvider
) -> None:
    missions = [
        FoldMission(
            id=1,
            seq=1,
            at=datetime(2025, 3, 1, tzinfo=UTC),
            instruction="가격은 월 29,900원으로 정했어요. Our price is $29.99.",
            reply="Noted.",
        )
    ]
    folded = SummaryState(
        decisions=[Decision(text="가격은 월 29,900원으로 정했어요", missions=[1])],
        facts=[SummaryItem(text="Our price is $29.99", missions=[1])],
    )
    fake_openai.enqueue(Reply(folded.model_dump_json()))

    state, report, producer, _ = fold_propose(
        provider=provider,
        previous=SummaryState(),
        missions=missions,
        budget=4_000,
        session_number=None,
    )

    assert (producer, report.ok, state) == ("openai", True, folded)
    schema = _sent_schema(fake_openai, "SummaryState")
    assert_strict(schema)
    # Every model of the state is in it, so the walk above covered them all.
    assert {"Decision", "SummaryItem", "DroppedMission"} <= set(schema["$defs"])


def test_the_extraction_schema_the_sdk_sends_is_strict(
    fake_openai: FakeOpenAI, provider: OpenAIProvider
) -> None:
    candidates = MemoryCandidates(items=[MemoryCandidate(kind="fact", text="가격은 월 29,900원")])
    fake_openai.enqueue(Reply(candidates.model_dump_json()))

    result = propose_candidates(provider=provider, instruction="가격은 월 29,900원", reply="네.")

    assert result == candidates
    assert_strict(_sent_schema(fake_openai, "MemoryCandidates"))


def test_the_schema_of_a_folds_extraction_is_strict(
    fake_openai: FakeOpenAI, provider: OpenAIProvider
) -> None:
    candidates = FoldedCandidates(
        items=[FoldedCandidate(mission=3, kind="fact", text="출시일은 3월 14일")]
    )
    fake_openai.enqueue(Reply(candidates.model_dump_json()))

    result, _ = provider.structured(
        messages=[{"role": "user", "content": "Mission #3"}], schema=FoldedCandidates
    )

    assert result == candidates
    assert_strict(_sent_schema(fake_openai, "FoldedCandidates"))


def test_python_side_defaults_are_kept() -> None:
    # The code builds empty states and items without listing every field.
    assert SummaryState().decisions == [] and SummaryState().goal == ""
    assert Decision(text="x", missions=[1]).superseded is False
    assert DroppedMission(mission=1, reason="r").session is None
    assert MemoryCandidates().items == []


def test_the_walk_catches_what_strict_mode_rejects() -> None:
    lax = {
        "type": "object",
        "properties": {"goal": {"type": "string", "default": ""}},
        "required": ["goal"],
        "additionalProperties": False,
    }
    with pytest.raises(AssertionError, match="default"):
        assert_strict(lax)
    with pytest.raises(AssertionError, match="required"):
        assert_strict({**lax, "properties": {"goal": {"type": "string"}}, "required": []})
