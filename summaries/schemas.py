"""The rolling summary's structure (docs/design.md §4): what a model returns as structured
output, what the extractive fold builds, and what RollingSummary.state stores."""

from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, Field

from llm.base import STRICT_OUTPUT


@dataclass(frozen=True)
class FoldMission:
    """A mission as a fold sees it."""

    id: int
    seq: int
    at: datetime
    instruction: str
    reply: str
    # The instruction is the office's brief (a synthesis, a delegated part the chief of
    # staff wrote): nothing in it is what the person said.
    instruction_is_generated: bool = False


class SummaryItem(BaseModel):
    model_config = STRICT_OUTPUT

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
    model_config = STRICT_OUTPUT

    mission: int = Field(description="Seq of a folded mission whose items are not kept.")
    session: int | None = Field(
        default=None, description="Number of the earlier session it belongs to; null for this one."
    )
    reason: str = Field(
        description="Why, and a one-line digest of the mission (what the person asked), so "
        "that it is known to exist."
    )


class SummaryState(BaseModel):
    """What a session has established so far, each item pointing back to its missions."""

    model_config = STRICT_OUTPUT

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

    def carried_only(self) -> "SummaryState":
        """What earlier sessions contributed (carried over): the items and drops that name
        their session; this session's own are left out."""
        return SummaryState(
            decisions=[d for d in self.decisions if d.session is not None],
            constraints=[i for i in self.constraints if i.session is not None],
            facts=[i for i in self.facts if i.session is not None],
            open_questions=[i for i in self.open_questions if i.session is not None],
            next_actions=[i for i in self.next_actions if i.session is not None],
            dropped=[d for d in self.dropped if d.session is not None],
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
