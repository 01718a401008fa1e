"""MCP client on the official Python SDK 2.x (runs in the py2 venv).

    mcp_client_v2.py URL [--mode legacy|auto|2026-07-28] [--call NAME [--args JSON]]

Uses the 2.x high-level (types are snake_case here: tool.input_schema, read_only_hint) `mcp.Client(url, mode=...)` (mcp/client/client.py in mcp 2.3.0):
  mode="legacy"      initialize handshake (session revision, e.g. 2025-11-25);
  mode="auto"        the default: probe `server/discover`, fall back to initialize;
  mode="2026-07-28"  adopt that stateless revision directly, no probe, no handshake.
Lists every tool, calls every readOnlyHint=true tool (or just --call NAME) and prints one JSON
line per result (stderr gets one "negotiated protocolVersion ..." line). With --resources,
--read URI, --prompts, --prompt NAME ARGS it does those instead (see _client_common.surface).
Exit codes: see _client_common.py.
"""

import asyncio
import sys

from mcp import Client

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree for the shared module
import _client_common as common  # noqa: E402


async def run(ns) -> int:
    # Client validates `mode` in its constructor (ValueError for e.g. "2025-11-25": that is a
    # handshake-era revision, reach it with mode="legacy").
    async with Client(ns.url, mode=ns.mode, raise_exceptions=True) as client:
        print(f"negotiated protocolVersion {client.protocol_version}", file=sys.stderr)
        if ns.surface:
            await common.surface(
                ns,
                resources=lambda c: client.list_resources(cursor=c, cache_mode="bypass"),
                templates=lambda c: client.list_resource_templates(cursor=c, cache_mode="bypass"),
                prompts=lambda c: client.list_prompts(cursor=c, cache_mode="bypass"),
                read=lambda uri: client.read_resource(uri, cache_mode="bypass"),
                get_prompt=client.get_prompt,
            )
            return 0
        tools, cursor = [], None
        while True:  # follow pagination; cache_mode="bypass": always ask the server
            page = await client.list_tools(cursor=cursor, cache_mode="bypass")
            tools += page.tools
            if not (cursor := page.next_cursor):
                break
        tool_error = False
        for name, arguments in common.plan(
                [(t.name, t.input_schema, bool(t.annotations and t.annotations.read_only_hint)) for t in tools], ns):
            tool_error |= common.emit(name, arguments, await client.call_tool(name, arguments))
        # Log messages travel on the session's GET stream (rmcp), so they may trail a
        # result: listen a moment before closing, or the client logs an error for them.
        await asyncio.sleep(0.2)
    return 2 if tool_error else 0


def main() -> int:
    common.setup_logging()
    ns = common.parse_args(__doc__, with_mode=True)
    try:
        return asyncio.run(run(ns))
    except Exception as exc:  # ExceptionGroup included
        return common.fail(exc)


if __name__ == "__main__":
    sys.exit(main())
