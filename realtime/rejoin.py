"""A socket that outlives an outage of the channel layer (Redis).

It opens, and takes what its client sends, without the layer; its groups' events just do
not reach it meanwhile (`in_group` is False). When the layer's subscription breaks, the
layer hands each socket a `channel_layer.lost` event (config.channel_layer) rather than
raising in its receive, which would close the socket (1011) under Channels' own receive
loop; so does a socket that fell CHANNEL_CAPACITY events behind (it lost some). The
socket then tries to rejoin its groups in a task of its own, so its client's frames are
still taken meanwhile; once back, it closes with `CLOSE_RECONNECT`, so that the client
reconnects and fetches what it missed by id."""

import asyncio
import logging
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

logger = logging.getLogger(__name__)

# "Events were lost (the channel layer was down, or the socket fell too far behind):
# reconnect and resync by id."
CLOSE_RECONNECT = 4503
# How long a socket that lost the channel layer waits before it tries to rejoin, at first
# and at most (doubling in between).
REJOIN_FIRST_WAIT = 0.5
REJOIN_MAX_WAIT = 5.0
# A leave that fails (a burst of closes, a Redis blip) is tried again after these waits:
# a socket that never left stays a member its group sends to until the membership expires.
LEAVE_RETRY_WAITS = (0.2, 1.0)


class RejoiningConsumer(AsyncWebsocketConsumer):
    """The groups of a socket, kept through an outage: `layer_groups()` names them,
    `join_groups()` once connected, `leave_groups()` on disconnect."""

    # Whether the groups' events reach this socket: not while the layer is unreachable.
    in_group = False
    _rejoin: "asyncio.Task[None] | None" = None

    def layer_groups(self) -> tuple[str, ...]:
        raise NotImplementedError

    async def join_groups(self) -> bool:
        """Join every group; False (a member of none that count) if the layer fails."""
        try:
            for group in self.layer_groups():
                await self.channel_layer.group_add(group, self.channel_name)
        except Exception as exc:
            logger.warning("socket %s is outside its groups: %s", self.channel_name, exc)
            self.in_group = False
            return False
        self.in_group = True
        return True

    async def leave_groups(self) -> None:
        if not self.in_group:
            return
        for wait in (*LEAVE_RETRY_WAITS, None):
            try:
                for group in self.layer_groups():
                    await self.channel_layer.group_discard(group, self.channel_name)
                return
            except Exception as exc:
                if wait is None:
                    # The layer forgets the membership when it expires.
                    logger.warning("socket %s could not leave its groups: %s", self, exc)
                    return
                await asyncio.sleep(wait)

    async def channel_layer_lost(self, event: dict[str, Any]) -> None:
        """The layer's subscription broke, or this socket fell too far behind: what its
        groups sent meanwhile is lost."""
        logger.warning("socket %s lost events of its groups", self.channel_name)
        self.in_group = False
        self.rejoin_later()

    def rejoin_later(self) -> None:
        """Join again in the background, then close with CLOSE_RECONNECT."""
        if not self.layer_groups():
            return  # a socket refused at connect: nothing to rejoin
        if self._rejoin is None or self._rejoin.done():
            # Failed joins meanwhile tell the socket again: one rejoin at a time.
            self._rejoin = asyncio.ensure_future(self._rejoin_groups())

    async def _rejoin_groups(self) -> None:
        wait = REJOIN_FIRST_WAIT
        while True:
            await asyncio.sleep(wait)
            wait = min(wait * 2, REJOIN_MAX_WAIT)
            if await self.join_groups():
                # Back in the groups: what was sent meanwhile never reached this socket.
                await self.close(code=CLOSE_RECONNECT)
                return

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        if self._rejoin is not None and self._rejoin is not asyncio.current_task():
            self._rejoin.cancel()
        await super().websocket_disconnect(message)
