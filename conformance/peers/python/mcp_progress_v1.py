"""Progress, logging and cancellation on the official Python MCP SDK 1.x (runs in the py1 venv).

    mcp_progress_v1.py URL [TOOL]   (TOOL: the count_slowly tool's name there, default count_slowly)

Against a server with `count_slowly(to)` (progress, a debug log per step, an info log at the end):
1. `logging/setLevel debug`, then `count_slowly {"to": 5}` with a progress callback;
2. `logging/setLevel warning`, then `count_slowly {"to": 2}`;
3. `logging/setLevel debug`, `count_slowly {"to": 100}` with a progress callback; after its
   third progress notification, `notifications/cancelled` for that request, then 1.5 s of
   listening (the rest of the count would take ~1 s), then `count_slowly {"to": 2}` again.
1.x sends no `notifications/cancelled` when the awaiting task is cancelled, so it is sent
here with session.send_notification. The request id it names: 1.x uses the request id as
the progress token (BaseSession.send_request sets `_meta.progressToken = request_id`), so it
is the token the progress notifications carry.

Each call is followed by 0.2 s of listening: the server (rmcp's session manager) sends
`notifications/message` on the session's GET stream, not on the call's POST stream (where
progress and the result go), so a log sent before the result may arrive after it; leaving
the session right then makes 1.x log "Error parsing SSE message" (ClosedResourceError).

Prints one JSON line: {"progress": [[progress, total, message], ...] (callback, call 1),
"tokens": [progressToken of each progress notification of call 1], "debug_logs": [[level,
data], ...], "warning_logs": [...], "results": [text of calls 1, 2 and the last],
"cancel": {"request_id", "before": [progress values seen before the cancel],
"after": [{"ms", "method", "params"}: every progress/log notification after it, ms after
sending it], "answered": the cancelled call's result or error if one came}}.
Exit codes: see _client_common.py.
"""

import asyncio
import sys
import time

from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client

sys.dont_write_bytecode = True
import _client_common as common  # noqa: E402


# The tool to call: `count_slowly`, or the name a gateway lists it under (argv[2]).
TOOL = sys.argv[2] if len(sys.argv) > 2 else "count_slowly"

async def cancel_a_count(session: ClientSession, seen: common.Notifications) -> dict:
    third = asyncio.Event()

    async def on_progress(value, total, message) -> None:
        if value >= 3:
            third.set()

    call = asyncio.create_task(session.call_tool(TOOL, {"to": 100}, progress_callback=on_progress))
    await asyncio.wait_for(third.wait(), 10)
    request_id = seen.progress()[-1]["progressToken"]
    before = [p["progress"] for p in seen.progress() if p["progressToken"] == request_id]
    sent = time.monotonic()
    await session.send_notification(types.ClientNotification(types.CancelledNotification(
        params=types.CancelledNotificationParams(requestId=request_id, reason="enough"))))
    await asyncio.sleep(1.5)
    answered = None
    if call.done():  # the server is not expected to answer a cancelled request
        answered = common.dump(call.result()) if call.exception() is None else repr(call.exception())
    else:
        call.cancel()  # 1.x then just forgets the request
    return {"request_id": request_id, "before": before, "after": seen.since(sent), "answered": answered}


async def run(url: str) -> int:
    logs: list = []

    async def on_log(params) -> None:
        logs.append([params.level, params.data])

    progress: list = []

    async def on_progress(value, total, message) -> None:
        progress.append([value, total, message])

    seen = common.Notifications()
    async with streamable_http_client(url) as (read, write, _session_id):
        async with ClientSession(read, write, logging_callback=on_log, message_handler=seen) as session:
            await session.initialize()
            results = []
            await session.set_logging_level("debug")
            first = await session.call_tool(TOOL, {"to": 5}, progress_callback=on_progress)
            results.append(first.content[0].text)
            await asyncio.sleep(0.2)  # notifications may trail the result
            tokens = [p["progressToken"] for p in seen.progress()]
            debug_logs, logs[:] = list(logs), []
            await session.set_logging_level("warning")
            second = await session.call_tool(TOOL, {"to": 2})
            results.append(second.content[0].text)
            await asyncio.sleep(0.2)
            warning_logs = list(logs)
            await session.set_logging_level("debug")
            cancel = await cancel_a_count(session, seen)
            last = await session.call_tool(TOOL, {"to": 2})
            results.append(last.content[0].text)
            await asyncio.sleep(0.2)  # its "counted to 2" log may trail the result (see above)
    common.line(progress=progress, tokens=tokens, debug_logs=debug_logs, warning_logs=warning_logs,
                results=results, cancel=cancel)
    return 0


def main() -> int:
    common.setup_logging()
    try:
        return asyncio.run(run(sys.argv[1]))
    except Exception as exc:  # ExceptionGroup included
        return common.fail(exc)


if __name__ == "__main__":
    sys.exit(main())
