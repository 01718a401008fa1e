"""What the clients (mcp_client_v1.py, mcp_client_v2.py) and the progress scripts
(mcp_progress_v1.py, mcp_progress_v2.py) share: command line, logging, arguments from a
tool's inputSchema, the resources/prompts pass, timestamped notifications, output. Only the
standard library here: it runs in both venvs (py1, py2); each script passes in its SDK's calls.

Exit codes of the clients: 0 all good; 1 an error (connection, protocol, a raised exception,
a warning-worthy failure is also logged on stderr); 2 a tool answered with isError=true.
A JSON-RPC error answering a resources/read or prompts/get is printed as that call's answer.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

# Placeholder values per JSON type (the Rust tests rely on exactly these).
PLACEHOLDERS: dict[str, Any] = {"string": "x", "integer": 1, "number": 1.5, "boolean": True,
                                "array": [], "null": None}


def setup_logging() -> None:
    # WARNING and above on stderr: the SDKs report some failures only as log records (e.g.
    # "Session termination failed: 202" on close), and the Rust tests fail on any of them.
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")


def parse_args(description: str, with_mode: bool = False) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("url", help="Streamable HTTP endpoint, e.g. http://127.0.0.1:PORT/mcp")
    parser.add_argument("--call", metavar="NAME", help="call only this tool (read-only or not)")
    parser.add_argument("--args", metavar="JSON", type=json.loads,
                        help="arguments for --call (default: generated from its inputSchema)")
    if with_mode:
        parser.add_argument("--mode", default="auto",
                            help="legacy (initialize handshake), auto (discover, fall back to "
                                 "initialize) or a modern revision such as 2026-07-28")
    # The resources/prompts pass; any of these replaces the tools pass.
    parser.add_argument("--resources", action="store_true",
                        help="list every resource and read each, then list the resource templates")
    parser.add_argument("--read", metavar="URI", action="append", default=[], help="read this URI")
    parser.add_argument("--prompts", action="store_true", help="list every prompt")
    parser.add_argument("--prompt", metavar=("NAME", "ARGS"), nargs=2, action="append", default=[],
                        help="get prompt NAME with the JSON object ARGS")
    ns = parser.parse_args()
    if ns.args is not None and ns.call is None:
        parser.error("--args needs --call")
    ns.prompt = [(name, json.loads(args)) for name, args in ns.prompt]
    ns.surface = bool(ns.resources or ns.read or ns.prompts or ns.prompt)
    if ns.surface and ns.call is not None:
        parser.error("--call is the tools pass; the resources/prompts options replace it")
    return ns


def example(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """A value satisfying `schema`: placeholders per type, only required properties."""
    root = root if root is not None else schema
    if "$ref" in schema:  # local refs only ("#/$defs/Name"), as pydantic and rmcp emit them
        target: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return example(target, root)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return example(schema[key][0], root)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):  # e.g. ["string", "null"]: take the first non-null type
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: example(props.get(name, {}), root) for name in schema.get("required", [])}
    return PLACEHOLDERS.get(kind, "x")


def plan(tools: list[tuple[str, dict[str, Any], bool]], ns: argparse.Namespace) -> list[tuple[str, dict[str, Any]]]:
    """(name, arguments) of the calls to make, from (name, inputSchema, readOnlyHint) triples
    (each SDK spells the fields its own way): --call NAME, else every read-only tool."""
    if ns.call is not None:
        schema = next((s for name, s, _ in tools if name == ns.call), None)
        if schema is None and ns.args is None:
            raise LookupError(f"tool {ns.call!r} not in tools/list")
        return [(ns.call, ns.args if ns.args is not None else example(schema))]
    return [(name, example(schema)) for name, schema, read_only in tools if read_only]


def dump(model: Any) -> Any:
    """An SDK model as its JSON wire form (camelCase in both SDKs)."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def line(**fields: Any) -> None:
    print(json.dumps(fields, separators=(",", ":")), flush=True)


def emit(name: str, arguments: dict[str, Any], result: Any) -> bool:
    """Print one JSON line for a call result; True when the tool reported isError."""
    body = dump(result)
    line(tool=name, arguments=arguments, result=body)
    return bool(body.get("isError"))


Page = Callable[[str | None], Awaitable[Any]]


async def every(fetch: Page, *field: str) -> list[Any]:
    """Every item of a paginated list: `fetch(cursor)` until no next cursor. `field` is the
    list's attribute, in each SDK's spelling (1.x camelCase, 2.x snake_case) when they differ."""
    items: list[Any] = []
    cursor = None
    while True:
        page = await fetch(cursor)
        items += next(getattr(page, f) for f in field if hasattr(page, f))
        cursor = getattr(page, "nextCursor", None) or getattr(page, "next_cursor", None)
        if not cursor:
            return items


async def answer(request: Awaitable[Any]) -> dict[str, Any]:
    """{"result": ...}, or {"error": {"code", "message"}} for a JSON-RPC error (1.x McpError,
    2.x MCPError: both carry `.error`, the ErrorData); anything else propagates."""
    try:
        return {"result": dump(await request)}
    except Exception as exc:
        error = getattr(exc, "error", None)
        if not isinstance(getattr(error, "code", None), int):
            raise
        return {"error": {"code": error.code, "message": error.message}}


async def surface(ns: argparse.Namespace, *, resources: Page, templates: Page, prompts: Page,
                  read: Callable[[str], Awaitable[Any]],
                  get_prompt: Callable[[str, dict[str, str]], Awaitable[Any]]) -> None:
    """The resources/prompts pass, one JSON line per step: {"resources": [...]}, then
    {"read": uri, "result" | "error"} for each, {"templates": [...]}; {"read": ...} per
    --read; {"prompts": [...]}; {"prompt": name, "arguments", "result" | "error"} per --prompt."""
    if ns.resources:
        listed = [dump(r) for r in await every(resources, "resources")]
        line(resources=listed)
        for resource in listed:
            line(read=resource["uri"], **await answer(read(resource["uri"])))
        line(templates=[dump(t) for t in await every(templates, "resourceTemplates", "resource_templates")])
    for uri in ns.read:
        line(read=uri, **await answer(read(uri)))
    if ns.prompts:
        line(prompts=[dump(p) for p in await every(prompts, "prompts")])
    for name, arguments in ns.prompt:
        line(prompt=name, arguments=arguments, **await answer(get_prompt(name, arguments)))


class Notifications:
    """A message_handler that keeps each progress and log notification with its arrival time
    (time.monotonic()): [(time, method, params as on the wire)]. Both SDKs hand every server
    notification to message_handler, whether or not a callback also got it (1.x wraps each
    in a ServerNotification whose .root is the notification; 2.x passes it bare)."""

    KEPT = ("notifications/progress", "notifications/message")

    def __init__(self) -> None:
        self.seen: list[tuple[float, str, dict[str, Any]]] = []

    async def __call__(self, message: Any) -> None:
        note = getattr(message, "root", message)
        method = getattr(note, "method", None)
        if method in self.KEPT:
            self.seen.append((time.monotonic(), method, dump(note.params)))

    def progress(self) -> list[dict[str, Any]]:
        return [params for _, method, params in self.seen if method == "notifications/progress"]

    def since(self, start: float) -> list[dict[str, Any]]:
        """What arrived after `start`: {"ms": milliseconds after it, "method", "params"}."""
        return [{"ms": round((t - start) * 1000, 1), "method": method, "params": params}
                for t, method, params in self.seen if t > start]


def fail(exc: BaseException) -> int:
    # anyio task groups wrap failures in ExceptionGroups: show the leaves, not the wrapper.
    leaves = [exc]
    while any(isinstance(e, BaseExceptionGroup) for e in leaves):
        leaves = [leaf for e in leaves for leaf in (e.exceptions if isinstance(e, BaseExceptionGroup) else [e])]
    for leaf in leaves:
        print(f"error: {type(leaf).__name__}: {leaf}", file=sys.stderr)
    return 1
