"""Words of the chat page that its script puts on screen, translated on the server (the
page's script cannot reach the catalogue) and handed over in a JSON script element.

Placeholders are {name}-style; the script fills them in."""

from django.utils.translation import gettext as _
from django.utils.translation import pgettext


def chat_strings() -> dict[str, object]:
    return {
        "you": _("You"),
        "office": _("Office"),
        "from_master": _("From {name} in the master channel"),
        "follow_up_from": _("The office · follow-up from the meeting notes of #{seq}"),
        "back_to_notes": _("Open the meeting notes"),
        "plan_of": _("Plan of #{seq}"),
        "plan_queued": _("queued"),
        "plan_working": _("working"),
        "plan_done": _("done"),
        "plan_failed": _("failed"),
        "plan_synthesizing": _("summing up"),
        "plan_summing_up": _("Summing up: {status}"),
        "plan_summing_up_later": _("Summing up when everyone is done"),
        "plan_tokens": _("{prompt} prompt + {completion} completion tokens"),
        "plan_seconds": _("{seconds} s"),
        "plan_minutes": _("{minutes} min {seconds} s"),
        "retry": _("Retry"),
        "unread": _("{count} unread"),
        "stopped": _("Stopped"),
        "copy": _("Copy"),
        "copied": _("Copied"),
        "regenerate": _("Regenerate"),
        "attempt": _("attempt {number}"),
        "editing": _("Editing #{seq}: your edit is sent as a new mission; #{seq} stays as it was."),
        "edited_from": _("Edited from #{seq}"),
        "stopped_before_answer": _("Stopped before any answer came."),
        "answered_below": _("Answered below"),
        "start_new_session": _("Start new session"),
        "back_to_master": _("Back to the master channel"),
        "open_channel": _("Open {name}’s channel"),
        "working": _("{name} is working…"),
        "the_team": _("The team"),
        "reply": _("Reply"),
        "typing": _("typing…"),
        "sending": _("You · sending…"),
        "unavailable": _("This channel is not available."),
        "reconnecting": _("Reconnecting…"),
        "too_long": _("The instruction has {count} characters; the limit is {limit}."),
        "count": _("{count} / {limit} characters"),
        "not_sent": _("Not sent: shorten it by {over} characters and send again."),
        "loading": _("Loading…"),
        "chars": _("{chars} chars"),
        "chars_of": _("{chars} / {budget} chars"),
        "missions_held": _("missions {list}"),
        "memory_held": _("memory {list}"),
        "total": _("Total: {chars} chars"),
        "rolling_summary": _("Rolling summary"),
        "carrying_over": _("(carrying over…)"),
        "goal": _("Goal: {goal}"),
        "decisions": _("Decisions"),
        "constraints": _("Constraints and preferences"),
        "facts": _("Facts"),
        "open_questions": _("Open questions"),
        "next_actions": _("Next actions"),
        "nothing_folded": _("Nothing folded yet: every mission is still in full detail."),
        "context_failed": _("Could not load the context: {error}"),
        "nothing_remembered": _("Nothing remembered yet."),
        "memory_failed": _("Could not load memory: {error}"),
        "pin": _("Pin"),
        "unpin": _("Unpin"),
        "edit": _("Edit"),
        "edit_memory": _("Edit memory"),
        "retire": _("Retire"),
        "confirm_new_session": _(
            "Start a new session? This one is closed and becomes read-only; its summary is "
            "carried over into the new one."
        ),
        "confirm_retire_memory": _(
            "Retire this memory item? Employees stop using it; it stays in the admin's history."
        ),
        "retire_memory": _("Retire it"),
        "proposed_change": _("Proposed from a conversation, to replace: {old}"),
        "confirm_change": _("Replace"),
        "reject_change": _("Keep mine"),
        # The prompt's sections by their names in the context report.
        "sections": {
            "system": pgettext("context section", "system"),
            "summary": pgettext("context section", "summary"),
            "pending": pgettext("context section", "pending"),
            "recent": pgettext("context section", "recent"),
            "memory": pgettext("context section", "memory"),
            "recall": pgettext("context section", "recall"),
            "current": pgettext("context section", "current"),
        },
        "kinds": {
            "fact": pgettext("memory kind", "fact"),
            "preference": pgettext("memory kind", "preference"),
            "rule": pgettext("memory kind", "rule"),
            "decision": pgettext("memory kind", "decision"),
        },
        "scopes": {
            "employee": pgettext("memory scope", "employee"),
            "channel": pgettext("memory scope", "channel"),
            "office": pgettext("memory scope", "office"),
        },
        # What the socket's error frames say, by their stable code; an unknown code shows
        # the server's own (English) message.
        "errors": {
            "rate_limited": _("Too many instructions at once: wait {seconds} s and send again."),
            "too_long": _("The instruction is too long."),
            "empty": _("The instruction is empty."),
            "bad_text": _("The text holds characters that cannot be stored."),
            "too_many_delegates": _("This instruction delegates to too many employees."),
            "too_many_followups": _("These meeting notes hand out too many follow-ups."),
            "cannot_stop": _("This reply is a part of a plan: it cannot be stopped on its own."),
            "not_found": _("That mission is not in this channel."),
            "bad_edit": _("The mission to edit is not in this channel."),
        },
    }
