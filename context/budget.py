"""The prompt's budget (docs/design.md §3): one object per channel kind, computed once from the
settings and read by everyone who needs a number of it: the loader (what to load), the
renderer (what to show), the recall index and the fold trigger (when to act), and the
context report (what each section may hold). Like a context-window overview: every
section's cap, named, and how they add up to the channel's envelope.

Impossible settings (sections whose caps leave the instruction no room) are refused at
start-up by a system check (`budget_check`), not met by a prompt that cannot be built."""

from dataclasses import asdict, dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning, register
from django.core.signals import setting_changed
from django.dispatch import receiver

if TYPE_CHECKING:
    from office.models import Channel

# What a mission shown in full may cost beside its text: its header, turn labels and
# quoting (also what a prompt held to its history's size allows per mission).
HISTORY_MIN_CHARS = 80
# The least room the current instruction keeps beside every other section at its cap: the
# mission's header and a few hundred chars of the request (a longer one is trimmed in the
# middle, with a marker). Settings that leave less are refused at start-up.
INSTRUCTION_MIN_CHARS = 400
# Room beside the summary for the marks of its lines whose value a later instruction
# replaced ("(superseded by #48: 72 GBP)", about 30 chars each): the fold fills the summary
# to its budget, and an old value must not be shown as current for want of room. Taken
# from recall's share when used.
SUMMARY_MARK_CHARS = 300

CHANNEL_KINDS = ("dm", "project", "master", "all")


@dataclass(frozen=True)
class PromptBudget:
    """The character budget of one channel's prompts."""

    kind: str
    # The whole prompt; what the sections before recall leave unused goes to recall.
    envelope: int
    # The last DETAIL_MISSIONS finished missions, in full (the channel's override, if any).
    detail: int
    detail_missions: int
    system: int
    # The share of the system section kept for the rules in force (pinned notes and the
    # person's rules): the persona gives way to them, down to what this leaves it.
    rules: int
    summary: int
    # What the summary section may hold beyond the summary: marks on its lines.
    summary_marks: int
    pending: int
    memory: int
    # Recall's floor: it keeps this much unless the instruction itself needs it.
    recall: int
    # The current mission's files (their text, pruned to what it asks): at most this, and
    # never at the cost of recall's floor.
    attachments: int = 0

    def for_channel(self, detail_override: int | None) -> "PromptBudget":
        """This kind's budget for a channel that may set its own detail cap."""
        return replace(self, detail=int(detail_override)) if detail_override else self

    def window(self, *, beside: int) -> int:
        """The detail window's room beside `beside` chars of the other sections: its cap,
        or less, so that recall keeps its floor."""
        return max(min(self.detail, self.envelope - beside - self.recall), 0)

    def window_expected(self, *, instruction_chars: int, summary_chars: int) -> int:
        """The room the renderer will give the window, judged before anything is rendered:
        the other sections at their caps (the summary and the instruction as they are). At
        most what the renderer gives, since no section is rendered over its cap."""
        beside = (
            instruction_chars
            + HISTORY_MIN_CHARS
            + summary_chars
            + (self.summary_marks if summary_chars else 0)
            + self.system
            + self.pending
            + self.memory
        )
        return self.window(beside=beside)

    def history_room(self, *, window_chars: int, instruction_chars: int) -> int:
        """The room the session's older missions have in full beside the window, the
        instruction, memory and the system message at their caps (then no summary and no
        pending digest needs to stand for them)."""
        return self.envelope - window_chars - instruction_chars - self.memory - self.system

    @property
    def detail_share(self) -> int:
        """One mission's even share of the detail cap: a mission larger than this may be
        trimmed by the window."""
        return self.detail // self.detail_missions

    def overview(self) -> dict[str, Any]:
        """The budget as the context report shows it."""
        return asdict(self)


@cache
def _kind_budgets() -> dict[str, PromptBudget]:
    return {
        kind: PromptBudget(
            kind=kind,
            envelope=int(settings.CONTEXT_BUDGET_CHARS[kind]),
            detail=int(settings.DETAIL_BUDGET_CHARS[kind]),
            detail_missions=int(settings.DETAIL_MISSIONS),
            system=int(settings.SYSTEM_BUDGET_CHARS),
            rules=int(settings.RULES_BUDGET_CHARS),
            summary=int(settings.SUMMARY_BUDGET_CHARS),
            summary_marks=SUMMARY_MARK_CHARS,
            pending=int(settings.PENDING_BUDGET_CHARS),
            memory=int(settings.MEMORY_BUDGET_CHARS),
            recall=int(settings.RECALL_BUDGET_CHARS),
            attachments=int(settings.ATTACHMENT_PROMPT_CHARS),
        )
        for kind in CHANNEL_KINDS
    }


def prompt_budget(kind: str, *, detail_override: int | None = None) -> PromptBudget:
    """The budget of a channel of `kind` (with its own detail cap, if it sets one)."""
    return _kind_budgets()[kind].for_channel(detail_override)


def channel_budget(channel: "Channel") -> PromptBudget:
    """The budget of `channel`'s prompts."""
    return prompt_budget(channel.kind, detail_override=channel.detail_budget_chars)


@receiver(setting_changed)
def _settings_changed(**kwargs: Any) -> None:
    """Tests change settings; a deployment does not (its budgets are computed once)."""
    _kind_budgets.cache_clear()


def budget_problems() -> list[str]:
    """What makes the configured budgets impossible, one sentence each (empty: none)."""
    problems = []
    for kind, budget in _kind_budgets().items():
        fixed = (
            budget.system
            + budget.summary
            + budget.summary_marks
            + budget.pending
            + budget.memory
            + budget.recall
        )
        if fixed + INSTRUCTION_MIN_CHARS > budget.envelope:
            problems.append(
                f"CONTEXT_BUDGET_CHARS_{kind.upper()}={budget.envelope} leaves the instruction "
                f"{budget.envelope - fixed} chars beside the system ({budget.system}), summary "
                f"({budget.summary}, and {budget.summary_marks} for its marks), pending "
                f"({budget.pending}), memory ({budget.memory}) and "
                f"recall ({budget.recall}) caps; it needs at least {INSTRUCTION_MIN_CHARS}"
            )
    return problems


def budget_oddities() -> list[str]:
    """Budgets that can be kept but do not mean what they say, one sentence each."""
    oddities = []
    for kind, budget in _kind_budgets().items():
        if budget.rules > budget.system:
            oddities.append(
                f"RULES_BUDGET_CHARS={budget.rules} is larger than the system section it is a "
                f"share of (SYSTEM_BUDGET_CHARS={budget.system})"
            )
        if budget.detail > budget.envelope:
            oddities.append(
                f"DETAIL_BUDGET_CHARS_{kind.upper()}={budget.detail} is larger than the whole "
                f"prompt's envelope (CONTEXT_BUDGET_CHARS_{kind.upper()}={budget.envelope})"
            )
    return oddities


@register()
def budget_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """Refuse, at start-up, budgets no prompt can keep; warn of a cap that cannot bind."""
    return [
        *(Error(p, id="context.E001") for p in budget_problems()),
        *(Warning(p, id="context.W001") for p in budget_oddities()),
    ]
