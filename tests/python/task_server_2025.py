"""A task server of protocol 2025-11-25 (the experimental `tasks` capability), built on the
pinned Python `mcp` SDK's own task support (`server.experimental.enable_tasks()`), that the
2025-11-25 task tests start behind the hub as a stdio server.

Tools (each `execution.taskSupport: "optional"`): `add` finishes at once, `ask_name` asks
the client for a name inside the task (status `input_required`; the elicitation reaches the
client on its `tasks/result` request), `hold` runs until it is cancelled. Each status change
is also sent as `notifications/tasks/status`. Tasks live in this process's memory.
"""

import anyio
import mcp.types as types
from mcp.server.experimental.task_context import ServerTaskContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

server = Server("task-fixture-2025")
server.experimental.enable_tasks()

OPTIONAL = types.ToolExecution(taskSupport=types.TASK_OPTIONAL)
NUMBERS = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
NOTHING = {"type": "object", "properties": {}}


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(name="add", description="Adds two numbers.", inputSchema=NUMBERS, execution=OPTIONAL),
        types.Tool(name="ask_name", description="Asks for a name, then greets it.", inputSchema=NOTHING,
                   execution=OPTIONAL),
        types.Tool(name="hold", description="Runs until cancelled.", inputSchema=NOTHING, execution=OPTIONAL),
    ]


def text(value: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=value)])


async def work_of(name: str, arguments: dict, task: ServerTaskContext) -> types.CallToolResult:
    if name == "add":
        return text(f"sum {arguments['a'] + arguments['b']}")
    if name == "ask_name":
        answer = await task.elicit(
            message="What is your name?",
            requestedSchema={"type": "object", "properties": {"name": {"type": "string"}},
                             "required": ["name"]},
        )
        return text(f"hello {(answer.content or {}).get('name')}")
    await anyio.Event().wait()
    return text("never")


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> types.CallToolResult | types.CreateTaskResult:
    context = server.request_context
    if not context.experimental.is_task:
        if name == "add":
            return text(f"sum {arguments['a'] + arguments['b']}")
        raise ValueError(f"{name} runs as a task only here")

    async def work(task: ServerTaskContext) -> types.CallToolResult:
        return await work_of(name, arguments, task)

    return await context.experimental.run_task(work)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
