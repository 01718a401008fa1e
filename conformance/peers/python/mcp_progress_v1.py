"""Progress and logging on the official Python MCP SDK 1.x (runs in the py1 venv).

    mcp_progress_v1.py URL

Calls `count_slowly` {"to": 5} with a progress callback after `logging/setLevel debug`,
then again after `logging/setLevel warning`, and prints one JSON line:
{"progress": [[progress, total, message], ...], "debug_logs": [[level, data], ...],
 "warning_logs": [...], "results": [text, text]}. Exit codes: see _client_common.py.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

sys.dont_write_bytecode = True
import _client_common as common  # noqa: E402


async def run(url: str) -> int:
    logs: list = []

    async def on_log(params) -> None:
        logs.append([params.level, params.data])

    progress: list = []

    async def on_progress(value, total, message) -> None:
        progress.append([value, total, message])

    async with streamable_http_client(url) as (read, write, _session_id):
        async with ClientSession(read, write, logging_callback=on_log) as session:
            await session.initialize()
            results = []
            await session.set_logging_level("debug")
            first = await session.call_tool("count_slowly", {"to": 5}, progress_callback=on_progress)
            results.append(first.content[0].text)
            await asyncio.sleep(0.2)  # notifications may trail the result
            debug_logs, logs[:] = list(logs), []
            await session.set_logging_level("warning")
            second = await session.call_tool("count_slowly", {"to": 2})
            results.append(second.content[0].text)
            await asyncio.sleep(0.2)
    print(json.dumps({"progress": progress, "debug_logs": debug_logs, "warning_logs": logs, "results": results}))
    return 0


def main() -> int:
    common.setup_logging()
    try:
        return asyncio.run(run(sys.argv[1]))
    except Exception as exc:  # ExceptionGroup included
        return common.fail(exc)


if __name__ == "__main__":
    sys.exit(main())
