"""What a server process does with its heap once it has started.

A started web process or task worker holds a few hundred thousand objects that live as long
as it does: Django's apps and URL resolvers, the admin, the openai SDK's types, the Korean
analyser's Python side. Python's cyclic garbage collector walks all of them on every full
collection, and a full collection holds the interpreter lock for its whole length:
measured in the concurrency benchmark's scenario 2 (embedded web process), about 120 ms
during which no socket, reply or accept runs. Frozen (`gc.freeze`), they are left out of
every later collection: the same full collection then took about 25 ms, and the
collector's CPU in that scenario about halved. Objects made later, a request's or a
mission's, are collected as before.

For a prefork Celery worker this is also what the Python documentation advises before
forking: children that never walk the parent's objects leave its memory pages shared."""

import gc


def freeze_startup_objects() -> int:
    """Collect what starting left behind, then freeze everything still alive; returns how
    many objects are frozen. Call once the process is ready to serve."""
    # Garbage first: whatever is frozen is never freed.
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
