"""A FastMCP 4 task server (the SEP-2663 tasks extension, `fastmcp-tasks`)
that the Python task tests start behind the hub as a stdio server.

Tools (each `task=True`, so a client that declares the extension gets a task
handle): `add` finishes at once, `ask_name` asks the client for a name inside
the task (`input_required`, answered with `tasks/update`), `hold` runs until
it is cancelled. The in-memory backend keeps tasks in this process only.
"""

import asyncio

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp_tasks import TasksExtension

mcp = FastMCP("task-fixture")
mcp.add_extension(TasksExtension(url="memory://"))


@mcp.tool(task=True)
async def add(a: int, b: int) -> str:
    """Adds two numbers."""
    return f"sum {a + b}"


@mcp.tool(task=True)
async def ask_name(ctx: Context) -> str | mcp_types.InputRequiredResult:
    """Asks the client for a name (in-task input), then greets it."""
    answers = ctx.input_responses
    if not answers or "name" not in answers:
        ask = mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(
                message="What is your name?",
                requested_schema={
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"],
                },
            )
        )
        return mcp_types.InputRequiredResult(input_requests={"name": ask})
    answer = answers["name"]
    content = getattr(answer, "content", None) or (answer.get("content") if isinstance(answer, dict) else None)
    return f"hello {(content or {}).get('name')}"


@mcp.tool(task=True)
async def hold() -> str:
    """Runs until cancelled."""
    await asyncio.Event().wait()
    return "never"


if __name__ == "__main__":
    mcp.run()
