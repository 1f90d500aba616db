"""What the office said, stored as English (or, for two texts, Korean) wordings, becomes
data: a kind and its parameters, rendered in the reader's language (missions.texts). A
wording this cannot read back exactly stays as it was, of kind `legacy` (shown as
stored).

Missions whose instruction the office wrote (a synthesis; a delegated part the chief of
staff wrote by tool call, that is, whose plan called a model) are marked as such.

The wordings below are frozen copies of what earlier versions wrote: this migration must
keep reading them whatever the catalogue says later."""

import re
from collections.abc import Callable
from typing import Any

from django.db import migrations

BATCH = 500

LONG_SESSION_EN = (
    "💡 This conversation has grown long. If the topic has changed, we recommend starting "
    "a new session: answers get more accurate and AI costs drop. If you continue, the "
    "earlier flow is kept as a summary."
)
LONG_SESSION = {
    LONG_SESSION_EN,
    "💡 이 대화가 꽤 길어졌어요. 주제가 바뀌었다면 새 세션 시작하기를 추천해요. 응답이 더 "
    "정확해지고 AI 사용료도 줄어듭니다. 이어서 진행해도 이전 흐름은 요약으로 유지돼요.",
}
UNKNOWN_MENTION = ("No one called @{name} works here.", "여기에는 @{name}(이)라는 직원이 없어요.")
COULD_NOT_ANSWER = re.compile(r"(?P<employee>.+?) could not answer: (?P<error>.*)", re.S)
SYNTHESIS_STARTED = re.compile(r"(?P<employee>.+) is putting the team's results together\.")
DELAYED = re.compile(
    r"Delayed: (?P<employee>.+) will answer as soon as the task queue is reachable again\. "
    r"Your instruction is saved\."
)


def _english(data: dict[str, Any]) -> str:
    """The wording an earlier version wrote for `data` (to check a reading, and to go
    back)."""
    kind = data["kind"]
    if kind == "could_not_answer":
        return f"{data['employee']} could not answer: {data['error']}"
    if kind == "reported_back":
        return f"{data['employee']} reported back: {data['excerpt']}"
    if kind == "follow_up":
        return f"Follow-up for {data['employee']}: {data['task']}"
    if kind == "unknown_mention":
        return " ".join(UNKNOWN_MENTION[0].format(name=n) for n in data["names"])
    if kind == "plan":
        parts = "; ".join(f"{p['employee']}: {p['task']}" for p in data["parts"])
        return f"Plan of mission #{data['seq']}: {parts}"
    if kind == "synthesis_started":
        return f"{data['employee']} is putting the team's results together."
    if kind == "delayed":
        return (
            f"Delayed: {data['employee']} will answer as soon as the task queue is reachable "
            "again. Your instruction is saved."
        )
    if kind == "long_session":
        return LONG_SESSION_EN
    raise KeyError(kind)


def _after_prefix(text: str, prefix: str) -> str | None:
    return text[len(prefix) :] if text.startswith(prefix) else None


def _read(message: Any, plan_parts: Callable[[int], list[dict[str, str]]]) -> dict[str, Any]:
    """The data an office text was written from, or `legacy`."""
    text, payload = message.text, message.payload or {}
    event = payload.get("event")
    employee = payload.get("employee")
    found: dict[str, Any] | None = None
    if message.kind == "error":
        match = COULD_NOT_ANSWER.fullmatch(text)
        if match:
            found = {"kind": "could_not_answer", **match.groupdict()}
    elif message.kind == "notice":
        if payload.get("notice") == "long_session" and text in LONG_SESSION:
            return {"kind": "long_session"}
    elif event == "report" and isinstance(employee, str):
        excerpt = _after_prefix(text, f"{employee} reported back: ")
        if excerpt is not None:
            found = {"kind": "reported_back", "employee": employee, "excerpt": excerpt}
    elif event == "meeting_followup" and isinstance(employee, str):
        task = _after_prefix(text, f"Follow-up for {employee}: ")
        if task is not None:
            found = {"kind": "follow_up", "employee": employee, "task": task}
    elif event == "unknown_mention" and isinstance(payload.get("names"), list):
        names = [str(n) for n in payload["names"]]
        for template in UNKNOWN_MENTION:
            if text == " ".join(template.format(name=n) for n in names):
                return {"kind": "unknown_mention", "names": names}
    elif event == "plan" and isinstance(payload.get("plan"), int):
        found = {"kind": "plan", "seq": payload.get("seq"), "parts": plan_parts(payload["plan"])}
    elif event == "synthesis":
        match = SYNTHESIS_STARTED.fullmatch(text)
        if match:
            found = {"kind": "synthesis_started", **match.groupdict()}
    elif event == "delayed":
        match = DELAYED.fullmatch(text)
        if match:
            found = {"kind": "delayed", **match.groupdict()}
    # Only a reading that gives back the very wording is kept.
    if found is not None and _english(found) == text:
        return found
    return {"kind": "legacy"}


def forwards(apps: Any, schema_editor: Any) -> None:
    Message = apps.get_model("missions", "Message")
    Mission = apps.get_model("missions", "Mission")

    def plan_parts(plan_id: int) -> list[dict[str, str]]:
        children = (
            Mission.objects.filter(parent_id=plan_id, source="delegation")
            .order_by("id")
            .values_list("assignee__name", "instruction")
        )
        return [{"employee": name, "task": task[:80]} for name, task in children]

    rows = Message.objects.filter(kind__in=("error", "event", "notice"))
    batch = []
    for message in rows.order_by("id").iterator(chunk_size=BATCH):
        data = _read(message, plan_parts)
        message.office_text = data
        if data["kind"] != "legacy":
            message.text = ""
            action = (message.payload or {}).get("action")
            if isinstance(action, dict):
                # The label is said in the reader's language when the message is shown.
                action.pop("label", None)
        batch.append(message)
        if len(batch) >= BATCH:
            Message.objects.bulk_update(batch, ["office_text", "text", "payload"])
            batch = []
    if batch:
        Message.objects.bulk_update(batch, ["office_text", "text", "payload"])

    Mission.objects.filter(source="synthesis").update(instruction_author="office")
    # A plan made from @mentions called no model: its parts are the person's own lines.
    Mission.objects.filter(source="delegation", parent__prompt_chars__gt=0).update(
        instruction_author="office"
    )


def backwards(apps: Any, schema_editor: Any) -> None:
    Message = apps.get_model("missions", "Message")
    batch = []
    rows = Message.objects.filter(kind__in=("error", "event", "notice"))
    for message in rows.order_by("id").iterator(chunk_size=BATCH):
        if not message.office_text:
            continue
        if message.office_text.get("kind") != "legacy":
            try:
                message.text = _english(message.office_text)
            except (KeyError, TypeError):
                pass
        message.office_text = {}
        batch.append(message)
        if len(batch) >= BATCH:
            Message.objects.bulk_update(batch, ["office_text", "text"])
            batch = []
    if batch:
        Message.objects.bulk_update(batch, ["office_text", "text"])


class Migration(migrations.Migration):
    dependencies = [("missions", "0007_office_texts_and_generated_instructions")]

    operations = [migrations.RunPython(forwards, backwards)]
