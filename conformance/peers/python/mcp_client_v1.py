"""MCP client on the official Python SDK 1.x (runs in the py1 venv): session revision only.

    mcp_client_v1.py URL [--call NAME [--args JSON]]
    mcp_client_v1.py URL [--resources] [--read URI]... [--prompts] [--prompt NAME ARGS]...

Lists every tool, calls every readOnlyHint=true tool (or just --call NAME) and prints one JSON
line per result: {"tool", "arguments", "result"}. With the resources/prompts options it does
those instead (see _client_common.surface). Exit codes: see _client_common.py.
"""

import asyncio
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client  # 1.30 name; streamablehttp_client is deprecated
from mcp.types import PaginatedRequestParams

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree for the shared module
import _client_common as common  # noqa: E402


async def run(ns) -> int:
    # 1.x has no high-level client: the transport yields streams, ClientSession speaks over them.
    async with streamable_http_client(ns.url) as (read, write, _session_id):
        async with ClientSession(read, write) as session:
            await session.initialize()
            if ns.surface:
                await common.surface(
                    ns,
                    resources=lambda c: session.list_resources(params=PaginatedRequestParams(cursor=c)),
                    templates=lambda c: session.list_resource_templates(params=PaginatedRequestParams(cursor=c)),
                    prompts=lambda c: session.list_prompts(params=PaginatedRequestParams(cursor=c)),
                    read=session.read_resource,
                    get_prompt=session.get_prompt,
                )
                return 0
            tools, cursor = [], None
            while True:  # follow pagination so "every tool" really is every tool
                page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
                tools += page.tools
                if not (cursor := page.nextCursor):
                    break
            tool_error = False
            for name, arguments in common.plan(
                [(t.name, t.inputSchema, bool(t.annotations and t.annotations.readOnlyHint)) for t in tools], ns):
                tool_error |= common.emit(name, arguments, await session.call_tool(name, arguments))
            # Log messages travel on the session's GET stream (rmcp), so they may trail a
            # result: listen a moment before closing, or the client logs an error for them.
            await asyncio.sleep(0.2)
    # Leaving the contexts sends DELETE to end the session; a failure there is only logged.
    return 2 if tool_error else 0


def main() -> int:
    common.setup_logging()
    ns = common.parse_args(__doc__)
    try:
        return asyncio.run(run(ns))
    except Exception as exc:  # ExceptionGroup included
        return common.fail(exc)


if __name__ == "__main__":
    sys.exit(main())
