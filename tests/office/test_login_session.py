"""Whether a login still holds (office.selectors.login_user_id): read for every instruction
a socket takes, so a log-out elsewhere stops the socket at its next frame."""

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.contrib.sessions.backends.cache import SessionStore as CacheSessionStore
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.test import override_settings
from django.utils import timezone

from office import selectors
from office.selectors import login_user_id
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def _logged_in() -> tuple[str, SessionStore]:
    user = make_user()
    session = SessionStore()
    session["_auth_user_id"] = str(user.pk)
    session.create()
    # The socket's copy of the session, as its middleware loaded it.
    return str(user.pk), SessionStore(session_key=session.session_key)


def test_a_live_login_belongs_to_its_user_and_stops_once_logged_out() -> None:
    user_id, session = _logged_in()
    other_id, other = _logged_in()
    assert login_user_id(session=session) == user_id
    assert login_user_id(session=other) == other_id
    Session.objects.filter(session_key=session.session_key).delete()  # logged out
    assert login_user_id(session=session) is None
    assert login_user_id(session=other) == other_id


def test_an_expired_login_holds_nobody() -> None:
    user_id, session = _logged_in()
    stored = Session.objects.filter(session_key=session.session_key)
    stored.update(expire_date=timezone.now() + timedelta(seconds=30))
    assert login_user_id(session=session) == user_id
    stored.update(expire_date=timezone.now() - timedelta(seconds=1))
    assert login_user_id(session=session) is None


def test_a_session_rotated_to_someone_else_holds_them_and_a_forged_one_nobody() -> None:
    _, session = _logged_in()
    someone = make_user()
    stored = Session.objects.get(session_key=session.session_key)
    rotated = SessionStore().encode({"_auth_user_id": str(someone.pk)})
    Session.objects.filter(pk=stored.pk).update(session_data=rotated)
    assert login_user_id(session=session) == str(someone.pk)
    Session.objects.filter(pk=stored.pk).update(session_data="forged:data")
    assert login_user_id(session=session) is None
    assert login_user_id(session=SessionStore()) is None  # no key at all


def test_another_session_engine_is_read_as_django_reads_it() -> None:
    user = make_user()
    session = CacheSessionStore()
    session["_auth_user_id"] = str(user.pk)
    session.create()
    assert login_user_id(session=CacheSessionStore(session_key=session.session_key)) == str(user.pk)
    session.delete()
    assert login_user_id(session=CacheSessionStore(session_key=session.session_key)) is None
    assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.db"


def test_the_same_stored_login_is_decoded_once_and_still_read_every_time(
    monkeypatch: pytest.MonkeyPatch, django_assert_num_queries: Any
) -> None:
    user_id, session = _logged_in()
    # An earlier test's session may have had the very same text (the same user id, signed
    # in the same second): its decoding would be remembered already.
    selectors._decoded_user.cache_clear()
    decoded: list[str] = []
    decode = SessionStore.decode

    def counting_decode(self: SessionStore, session_data: str) -> dict[str, Any]:
        decoded.append(session_data)
        return decode(self, session_data)

    monkeypatch.setattr(SessionStore, "decode", counting_decode)
    with django_assert_num_queries(3):
        for _ in range(3):
            assert login_user_id(session=session) == user_id
    assert len(decoded) == 1
    Session.objects.filter(session_key=session.session_key).delete()  # logged out
    assert login_user_id(session=session) is None


def test_a_stored_login_signed_with_another_key_holds_nobody() -> None:
    user_id, session = _logged_in()
    assert login_user_id(session=session) == user_id
    with override_settings(SECRET_KEY="another-key-" + "x" * 50):
        assert login_user_id(session=session) is None
    assert login_user_id(session=session) == user_id
