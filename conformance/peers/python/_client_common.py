"""What mcp_client_v1.py and mcp_client_v2.py share: command line, logging, arguments from a
tool's inputSchema, output. Only the standard library here: it runs in both venvs (py1, py2).

Exit codes of the clients: 0 all good; 1 an error (connection, protocol, a raised exception,
a warning-worthy failure is also logged on stderr); 2 a tool answered with isError=true.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
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
    ns = parser.parse_args()
    if ns.args is not None and ns.call is None:
        parser.error("--args needs --call")
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


def emit(name: str, arguments: dict[str, Any], result: Any) -> bool:
    """Print one JSON line for a call result; True when the tool reported isError."""
    body = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    print(json.dumps({"tool": name, "arguments": arguments, "result": body},
                     separators=(",", ":")), flush=True)
    return bool(body.get("isError"))


def fail(exc: BaseException) -> int:
    # anyio task groups wrap failures in ExceptionGroups: show the leaves, not the wrapper.
    leaves = [exc]
    while any(isinstance(e, BaseExceptionGroup) for e in leaves):
        leaves = [leaf for e in leaves for leaf in (e.exceptions if isinstance(e, BaseExceptionGroup) else [e])]
    for leaf in leaves:
        print(f"error: {type(leaf).__name__}: {leaf}", file=sys.stderr)
    return 1
