"""Static files under Daphne: served, and a path that climbs out of the static folders is
a plain 404 rather than a server error."""

from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator

pytestmark = pytest.mark.django_db


async def _status(path: str) -> int:
    # Imported here, once the test's settings apply (tasks inline): importing the web
    # process's module starts what a server starts (config.asgi).
    from config.asgi import application

    scope: dict[str, Any] = {
        "type": "http",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"localhost")],
        "scheme": "http",
        "server": ("localhost", 80),
    }
    communicator = ApplicationCommunicator(application, scope)
    await communicator.send_input({"type": "http.request", "body": b""})
    start = await communicator.receive_output(timeout=5)
    assert start["type"] == "http.response.start"
    await communicator.wait(timeout=5)
    return int(start["status"])


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/static/office/chat.js", 200),
        ("/static/office/missing.js", 404),
        ("/static/../config/settings.py", 404),
        ("/static/%2e%2e/config/settings.py", 404),
    ],
)
async def test_static_paths_answer_as_files_or_404(path: str, status: int) -> None:
    assert await _status(path) == status
