"""Pydantic schemas at the model edge: the rolling summary's structure and memory
candidates. The OpenAI provider asks for these as structured output; the offline
provider builds them deterministically."""

from pydantic import BaseModel, ConfigDict, Field


class SummaryItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        description="One self-contained statement, with its numbers, names and dates."
    )
    missions: list[int] = Field(
        description="The seq numbers of the missions this item comes from (evidence)."
    )
    session: int | None = Field(
        default=None,
        description="Number of the earlier session the missions belong to; null for this one.",
    )


class Decision(SummaryItem):
    superseded: bool = Field(
        default=False, description="True when a later mission reversed or replaced it."
    )
    superseded_by: list[int] = Field(
        default_factory=list, description="The seq numbers of the missions that reversed it."
    )


class DroppedMission(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mission: int = Field(description="Seq of a folded mission that left nothing worth keeping.")
    session: int | None = Field(
        default=None, description="Number of the earlier session it belongs to; null for this one."
    )
    reason: str


class SummaryState(BaseModel):
    """What a session has established so far, each item pointing back to its missions."""

    model_config = ConfigDict(extra="forbid")

    goal: str = Field(default="", description="What the person is trying to achieve overall.")
    goal_missions: list[int] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    constraints: list[SummaryItem] = Field(
        default_factory=list, description="Constraints and preferences the work must respect."
    )
    facts: list[SummaryItem] = Field(default_factory=list)
    open_questions: list[SummaryItem] = Field(default_factory=list)
    next_actions: list[SummaryItem] = Field(default_factory=list)
    dropped: list[DroppedMission] = Field(
        default_factory=list, description="Folded missions deliberately left out, with why."
    )

    def items(self) -> list[tuple[str, SummaryItem]]:
        """Every item with its section name, in rendering order."""
        sections: list[tuple[str, list[SummaryItem]]] = [
            ("decisions", list(self.decisions)),
            ("constraints", self.constraints),
            ("facts", self.facts),
            ("open_questions", self.open_questions),
            ("next_actions", self.next_actions),
        ]
        return [(name, item) for name, items in sections for item in items]


class MemoryCandidate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="preference, fact, rule or decision")
    text: str = Field(description="The durable statement, self-contained.")


class MemoryCandidates(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[MemoryCandidate] = Field(default_factory=list)
