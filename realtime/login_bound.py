"""A socket bound to the login it was opened with: it closes (4401) when the login ends, and
nothing is delivered to it or taken from it afterwards.

Three ways catch the end. The person's group carries a close the moment their login ends
(office.logins); each client frame checks the stored login again; and a timer checks it
every SOCKET_LOGIN_RECHECK_SECONDS, so a socket whose close was missed (the layer lost it,
or the socket was outside its groups then) and whose page sends nothing still closes
within that time, instead of receiving replies until it sends a frame.

A consumer may add its own condition (`closing_code`): the channel socket closes the same
ways when its person is taken out of the channel's office (office.people.services)."""

import asyncio
import logging
import random
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from office.selectors import login_holds

logger = logging.getLogger(__name__)

CLOSE_LOGGED_OUT = 4401


def login_alive(scope: dict[str, Any]) -> bool:
    """Whether the person's login (Django's session, not a chat session) still holds: the
    backstop behind the close that a log-out, a new password or a deactivation sends to
    the person's sockets (it may be lost, or the socket outside its groups)."""
    session = scope.get("session")
    if session is None:
        return False
    # A deleted (logged out) or expired session holds nobody, a rotated one nobody or
    # someone else; one made with an old password, or for a deactivated user, nobody.
    return login_holds(session=session, user_id=scope["user"].pk)


class LoginBoundConsumer(AsyncWebsocketConsumer):
    """The login's end for a consumer: `start_login_recheck()` once accepted; `end_login()`
    closes; `login_ended` says whether anything may still pass."""

    # Set when the person's login ended: nothing is delivered or taken from then on.
    login_ended = False
    _recheck: "asyncio.Task[None] | None" = None

    def closing_code(self) -> int | None:
        """Why the socket must close now (its close code), None while it may stay. Runs
        in the database thread; consumers add their own conditions."""
        return None if login_alive(self.scope) else CLOSE_LOGGED_OUT

    def start_login_recheck(self) -> None:
        self._recheck = asyncio.ensure_future(self._recheck_login())

    async def _recheck_login(self) -> None:
        interval = float(settings.SOCKET_LOGIN_RECHECK_SECONDS)
        # The first wait is spread out: sockets that reconnected together (after a restart)
        # do not all ask the database at the same tick.
        wait = interval * random.uniform(0.5, 1.0)
        while not self.login_ended:
            await asyncio.sleep(wait)
            wait = interval
            await self.recheck()

    async def recheck(self) -> None:
        """Close the socket if it may no longer stay (`closing_code`)."""
        try:
            code = await database_sync_to_async(self.closing_code)()
        except Exception as exc:
            # The database did not answer: the next tick, or the next frame, asks again.
            logger.warning("socket %s: could not re-check its login: %s", self, exc)
            return
        if code is not None:
            await self.end_login(code=code)

    async def end_login(self, *, code: int = CLOSE_LOGGED_OUT) -> None:
        if self.login_ended:
            return
        self.login_ended = True
        await self.close(code=code)

    async def login_closed(self, event: dict[str, Any]) -> None:
        """The person logged out, changed their password or was deactivated."""
        await self.end_login()

    async def access_changed(self, event: dict[str, Any]) -> None:
        """What the person may see changed (taken out of an office): ask again now."""
        await self.recheck()

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        if self._recheck is not None and self._recheck is not asyncio.current_task():
            self._recheck.cancel()
        await super().websocket_disconnect(message)
