"""The push side: every server frame as a pydantic model (frames) and how frames reach a
channel's sockets over the channel layer (events). Below every domain app: it imports none,
and the apps send through it without importing the WebSocket entry point (realtime/)."""
