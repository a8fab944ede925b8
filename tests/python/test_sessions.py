"""Sessions seen by the official `mcp` Python SDK: ending a session is clean.

The SDK sends `DELETE` with its session id when the client closes and logs
"Session termination failed: <code>" unless the answer is 200 or 204.
"""

from __future__ import annotations

import json
import logging
import urllib.request
from typing import Any

import pytest

from conftest import fixture_bin

_no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def session_count(hub: Any) -> int:
    with _no_proxy.open(f"{hub.base}/api/v1/status", timeout=10) as response:
        assert response.status == 200
        return len(json.load(response)["sessions"])


@pytest.mark.anyio
async def test_closing_a_session_is_clean(hub_factory, mcp_connect, caplog) -> None:
    hub = hub_factory({"mcpServers": {
        "a": {"command": str(fixture_bin()), "args": ["--tools", "x,y"]},
    }})
    caplog.set_level(logging.DEBUG)
    for route in (hub.url, f"{hub.base}/servers/a/mcp"):
        async with mcp_connect(route) as session:
            tools = await session.list_tools()
            assert len(tools.tools) == 2
            assert session_count(hub) == 1
        # The DELETE was answered before the client returned: the session is
        # gone from the status at once, and the SDK saw a success.
        assert session_count(hub) == 0, route
    failures = [r.getMessage() for r in caplog.records
                if "Session termination failed" in r.getMessage()]
    assert failures == [], failures
