from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.translation import gettext
from ninja import Router
from ninja.errors import HttpError

from office.selectors import channel_get_for_user
from push.markdown import markdown_inline_html
from sessions.selectors import session_current
from summaries.render import ref_label, render_summary, state_shown
from summaries.schemas import SummaryState
from summaries.selectors import summary_shown, summary_shown_labels

router = Router(tags=["summaries"])

# The summary's lists of items, each item a model's (or the extractive fold's) words.
ITEM_LISTS = ("decisions", "constraints", "facts", "open_questions", "next_actions")


@router.get("channels/{channel_id}/summary", summary="The rolling summary of the current session")
def channel_summary(request: HttpRequest, channel_id: int) -> dict[str, Any]:
    user: User = request.user  # type: ignore[assignment]
    channel = channel_get_for_user(user=user, channel_id=channel_id)
    if channel is None:
        raise HttpError(404, gettext("No such channel."))
    session = session_current(channel=channel)
    if session is None:
        raise HttpError(404, gettext("The channel has no session yet."))
    shown = summary_shown(session=session)
    # The state cites missions by seq (its sources); a person reads them by the numbers
    # they see: `labels` maps each citation ("#3", "s1#7") to that ("#2", "s1#5").
    labels = summary_shown_labels(shown=shown, channel_id=channel.pk)
    state = shown.shown.state if shown.shown else {}
    text = render_summary(SummaryState.model_validate(state), labels) if shown.text else ""
    return {
        "session": session.pk,
        "number": session.number,
        "state": state_shown(state),
        "labels": {ref_label(*ref): ref_label(*ref, labels) for ref in labels},
        "text": text,
        # Each item's text as the panel shows it: its Markdown as sanitised inline HTML,
        # list by list in the order of `state`.
        "html": {
            key: [markdown_inline_html(str(item.get("text", ""))) for item in state.get(key, [])]
            for key in ITEM_LISTS
        },
        "version": shown.shown.version if shown.shown else 0,
        "folded_through_seq": shown.watermark,
        "carry_over_pending": bool(shown.summary and shown.summary.carry_over_pending),
    }
