"""FastMCP's documented proxy (`create_proxy`) in front of one stdio server,
served over Streamable HTTP at http://127.0.0.1:PORT/mcp.

Usage: python fastmcp_proxy.py PORT COMMAND [ARG...]
Run with FASTMCP_CHECK_FOR_UPDATES=off so it makes no network calls.
"""

import sys

from fastmcp.server import create_proxy


def main() -> None:
    port = int(sys.argv[1])
    command, args = sys.argv[2], sys.argv[3:]
    config = {"mcpServers": {"upstream": {"command": command, "args": args}}}
    proxy = create_proxy(config, name="fastmcp-proxy")
    proxy.run(
        transport="http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        show_banner=False,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
