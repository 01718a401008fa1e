"""Progress, logging and cancellation on the official Python MCP SDK 2.x (runs in the py2 venv).

    mcp_progress_v2.py URL [TOOL]   (TOOL: the count_slowly tool's name there, default count_slowly)

The same three steps and the same JSON line as mcp_progress_v1.py, over `mcp.Client(url,
mode="legacy")`: `logging/setLevel` belongs to the handshake-era revisions (2026-07-28 has
per-request log opt-in instead), and 2.x marks it deprecated with an MCPDeprecationWarning,
silenced here because using it is the point. Cancellation is 2.x's own: cancelling the task
that awaits call_tool makes the SDK send `notifications/cancelled` for the request
(JSONRPCDispatcher.send_raw_request, "courtesy cancel"; on a legacy connection the transport
POSTs it and leaves the request's SSE stream open). 2.x, too, uses the request id as the
progress token, so `request_id` is the token of the progress notifications. Logs may
trail results (see mcp_progress_v1.py), hence the pauses.
Exit codes: see _client_common.py.
"""

import asyncio
import sys
import time
import warnings

from mcp import Client, MCPDeprecationWarning

sys.dont_write_bytecode = True
import _client_common as common  # noqa: E402


# The tool to call: `count_slowly`, or the name a gateway lists it under (argv[2]).
TOOL = sys.argv[2] if len(sys.argv) > 2 else "count_slowly"

async def cancel_a_count(client: Client, seen: common.Notifications) -> dict:
    third = asyncio.Event()

    async def on_progress(value, total, message) -> None:
        if value >= 3:
            third.set()

    call = asyncio.create_task(client.call_tool(TOOL, {"to": 100}, progress_callback=on_progress))
    await asyncio.wait_for(third.wait(), 10)
    request_id = seen.progress()[-1]["progressToken"]
    before = [p["progress"] for p in seen.progress() if p["progressToken"] == request_id]
    sent = time.monotonic()
    call.cancel()  # the SDK sends notifications/cancelled on the way out
    answered = None
    try:
        answered = common.dump(await call)
    except asyncio.CancelledError:
        pass
    await asyncio.sleep(1.5)  # the rest of the count would take ~1 s
    return {"request_id": request_id, "before": before, "after": seen.since(sent), "answered": answered}


async def run(url: str) -> int:
    logs: list = []

    async def on_log(params) -> None:
        logs.append([params.level, params.data])

    progress: list = []

    async def on_progress(value, total, message) -> None:
        progress.append([value, total, message])

    seen = common.Notifications()
    async with Client(url, mode="legacy", raise_exceptions=True, logging_callback=on_log,
                      message_handler=seen) as client:
        results = []
        await client.set_logging_level("debug")
        first = await client.call_tool(TOOL, {"to": 5}, progress_callback=on_progress)
        results.append(first.content[0].text)
        await asyncio.sleep(0.2)  # notifications may trail the result
        tokens = [p["progressToken"] for p in seen.progress()]
        debug_logs, logs[:] = list(logs), []
        await client.set_logging_level("warning")
        second = await client.call_tool(TOOL, {"to": 2})
        results.append(second.content[0].text)
        await asyncio.sleep(0.2)
        warning_logs = list(logs)
        await client.set_logging_level("debug")
        cancel = await cancel_a_count(client, seen)
        last = await client.call_tool(TOOL, {"to": 2})
        results.append(last.content[0].text)
        await asyncio.sleep(0.2)  # its "counted to 2" log may trail the result
    common.line(progress=progress, tokens=tokens, debug_logs=debug_logs, warning_logs=warning_logs,
                results=results, cancel=cancel)
    return 0


def main() -> int:
    common.setup_logging()
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning, message=".*logging capability")
    try:
        return asyncio.run(run(sys.argv[1]))
    except Exception as exc:  # ExceptionGroup included
        return common.fail(exc)


if __name__ == "__main__":
    sys.exit(main())
