"""Small builders for test data, on top of the real services."""

from collections.abc import Callable
from itertools import count

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.contrib.auth.models import User

from context.rendering import AssembledContext
from context.selectors import context_for_next
from context.services import passages_index_session
from missions.intake import mission_record_finished
from missions.models import Mission
from office.models import Channel, ChannelKind, Employee, Office
from office.selectors import channel_default_assignee
from office.services import office_create_with_team
from sessions.models import ChatSession
from sessions.selectors import session_current

_numbers = count(1)


def make_user(
    username: str | None = None, *, password: str = "pw-for-tests-1", served: bool = False
) -> User:
    """A user; `served`: their password hashed as production hashes it, for a server the
    test starts to check (the tests' own cheap hash would be upgraded there on the first
    right password, and the sessions made with it would end)."""
    User = get_user_model()
    user = User.objects.create_user(username=username or f"user{next(_numbers)}", password=password)
    if served:
        hasher = PBKDF2PasswordHasher()
        user.password = hasher.encode(password, hasher.salt())
        user.save(update_fields=["password"])
    return user


def make_office(owner: User | None = None, *, name: str = "Test office") -> Office:
    return office_create_with_team(owner=owner or make_user(), name=name)


def channel_of(office: Office, kind: str, name: str | None = None) -> Channel:
    channels = office.channels.filter(kind=kind)
    if name is not None:
        channels = channels.filter(name=name)
    return channels.order_by("id").first()  # type: ignore[return-value]


def dm_channel(office: Office, employee_name: str = "Theo") -> Channel:
    return office.channels.get(kind=ChannelKind.DM, employee__name=employee_name)


def add_finished_missions(
    session: ChatSession,
    count_: int,
    *,
    text: Callable[[int], tuple[str, str]] | None = None,
) -> list[Mission]:
    """Finished missions appended through the real services (folds run as queued),
    all of them indexed for recall, as a history the sweep has been over is (the batches
    of the real path leave the newest few to their next batch: tests/context/
    test_index_batches.py)."""

    assignee = channel_default_assignee(channel=session.channel)
    start = session.mission_count
    made = []
    for n in range(start + 1, start + count_ + 1):
        instruction, reply = (text or _default_text)(n)
        made.append(
            mission_record_finished(
                session=session, assignee=assignee, instruction=instruction, reply=reply
            )
        )
    passages_index_session(session_id=session.pk)
    return made


def _default_text(n: int) -> tuple[str, str]:
    return (
        f"Mission {n}: draft section {n} of the plan.",
        f"Here is section {n}. It covers step {n} and lists {n % 7 + 1} risks.",
    )


def next_context(
    *, channel: Channel, instruction: str, employee: Employee | None = None
) -> AssembledContext:
    """The context the next mission of the channel's current session would get."""
    session = session_current(channel=channel)
    assert session is not None
    return context_for_next(
        channel=channel, session=session, instruction=instruction, employee=employee
    )


def long_text(n: int) -> tuple[str, str]:
    """A mission too long for a whole session of them to fit the prompt's envelope, so
    that the summary and the pending digests are what carries the older ones."""
    return (
        f"Mission {n}: draft section {n} of the launch plan, with the owners and the dates.",
        f"Here is section {n}. " + f"It covers step {n} and its risks in detail. " * 60,
    )
