"""A small AEP extension written the way a Python developer would write one.

FastAPI serves the AEP routes (discovery, health, an `echo` model provider) and the official
MCP Python SDK 1.x (FastMCP, Streamable HTTP, session-based revision) serves the tools at
/mcp. Nothing here comes from aep-sdk: the Rust conformance tests use it as a *foreign* peer.

    python foreign_ext.py --port 0 [--v1-canonical] [--health-loading] [--nulls]

prints `LISTENING http://127.0.0.1:PORT` on stdout once it accepts connections.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
from typing import Any, Literal, TypedDict

import uvicorn
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, StreamingResponse
from mcp.server.fastmcp import FastMCP
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from starlette.exceptions import HTTPException as StarletteHTTPException

args = argparse.Namespace(v1_canonical=False, health_loading=False, nulls=False)  # set in main()

# ---- wire models (camelCase on the wire, unknown members ignored as the spec asks) -----------


class Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class Capability(Wire):
    version: str = "1.0"
    endpoint: str | None = None  # aep.tools has none


class ExtensionInfo(Wire):
    id: str
    name: str
    version: str
    description: str | None = None


class ToolMcp(Wire):
    server: str
    tool: str


class ToolContribution(Wire):
    # No schemas here on purpose: MCP tools/list is the only authority for them.
    id: str
    display_name: str
    description: str | None = None
    metadata: dict[str, Any] | None = None
    mcp: ToolMcp


class ModelDescriptor(Wire):
    id: str
    display_name: str
    capabilities: list[str] | None = None
    metadata: dict[str, str] | None = None


class ProviderCapabilities(Wire):
    chat: bool = True
    streaming: bool = True
    tools: bool = False
    thinking: bool = False
    structured_output: bool = False
    vision: bool = False
    model_discovery: bool = True


class ModelProviderDescriptor(Wire):
    id: str
    display_name: str
    capabilities: ProviderCapabilities
    models: list[ModelDescriptor] | None = None
    metadata: dict[str, Any] | None = None


class Contributions(Wire):
    model_providers: list[ModelProviderDescriptor]
    tools: list[ToolContribution]


class McpServer(Wire):
    id: str
    endpoint: str


class McpSection(Wire):
    servers: list[McpServer]


class Manifest(Wire):
    protocol_version: str
    extension: ExtensionInfo
    capabilities: dict[str, Capability]
    contributions: Contributions
    mcp: McpSection | None = None


class Health(Wire):
    status: str  # an open string: available, unavailable, loading, ...
    details: str | None = None


class Content(Wire):
    kind: Literal["text", "image", "file", "structured", "toolCall", "toolResult"]
    text: str | None = None
    media_type: str | None = None
    uri: str | None = None
    data: Any = None
    tool_call: dict[str, Any] | None = None
    tool_result: dict[str, Any] | None = None


class Message(Wire):
    role: Literal["system", "user", "assistant", "tool"]
    contents: list[Content]
    author_name: str | None = None


class ChatRequest(Wire):
    model: str
    messages: list[Message]
    options: dict[str, Any] | None = None
    tools: list[dict[str, Any]] | None = None
    metadata: dict[str, Any] | None = None


class Usage(Wire):
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None


class ChatResponse(Wire):
    messages: list[Message]
    model: str | None = None
    finish_reason: str | None = None
    usage: Usage | None = None


class ChatUpdate(Wire):
    contents: list[Content] = Field(default_factory=list)
    role: str | None = None
    model: str | None = None
    finish_reason: str | None = None
    usage: Usage | None = None


def wire(model: BaseModel) -> Any:
    # The spec wants absent optionals omitted; --nulls mimics C#'s System.Text.Json, which
    # writes them as null (legal: readers accept both).
    return model.model_dump(mode="json", by_alias=True, exclude_none=not args.nulls)


def reply(model: BaseModel | list[BaseModel], status: int = 200) -> JSONResponse:
    body = [wire(m) for m in model] if isinstance(model, list) else wire(model)
    return JSONResponse(body, status_code=status)


# ---- the extension's content --------------------------------------------------------------

ECHO = ModelProviderDescriptor(
    id="echo",
    display_name="Echo",
    capabilities=ProviderCapabilities(),
    models=[ModelDescriptor(id="echo-1", display_name="Echo 1", capabilities=["chat"])],
)
PROVIDERS = {ECHO.id.lower(): ECHO}


def manifest(protocol_version: str) -> Manifest:
    return Manifest(
        protocol_version=protocol_version,
        extension=ExtensionInfo(id="py.echo", name="Python echo", version="0.1.0",
                                description="Foreign AEP peer: FastAPI + MCP Python SDK"),
        capabilities={
            "aep.health": Capability(endpoint="/aep/health"),
            "aep.model-provider": Capability(endpoint="/aep/model-providers"),
            "aep.tools": Capability(),
        },
        contributions=Contributions(
            model_providers=[ECHO],
            tools=[
                ToolContribution(id="py.reverse", display_name="Reverse text",
                                 mcp=ToolMcp(server="tools", tool="reverse")),
                ToolContribution(id="py.add", display_name="Add integers",
                                 metadata={"category": "math"}, mcp=ToolMcp(server="tools", tool="add")),
            ],
        ),
        mcp=McpSection(servers=[McpServer(id="tools", endpoint="/mcp")]),
    )


# ---- MCP tools (FastMCP, official SDK 1.x) ----------------------------------------------

LOCAL_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
mcp = FastMCP(
    "py.echo",
    # DNS-rebinding rule: loopback Host/Origin values with or without a port are fine, any
    # other Origin gets 403 (the SDK answers 421 for a foreign Host).
    transport_security=TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h + p for h in LOCAL_HOSTS for p in ("", ":*")],
        allowed_origins=[s + h + p for s in ("http://", "https://") for h in LOCAL_HOSTS for p in ("", ":*")],
    ),
)


@mcp.tool(annotations=ToolAnnotations(title="Reverse text", readOnlyHint=True, openWorldHint=False))
def reverse(text: str) -> str:
    """Return the text reversed."""
    return text[::-1]


class Sum(TypedDict):
    sum: int


# Not read-only on purpose (pure, but unannotated as such): the clients' "call every
# read-only tool" pass must skip it.
@mcp.tool(annotations=ToolAnnotations(title="Add integers", idempotentHint=True, openWorldHint=False))
def add(a: int, b: int) -> Sum:
    """Add two integers; the result is structured ({"sum": n})."""
    return Sum(sum=a + b)


# ---- FastAPI app ----------------------------------------------------------------------


@contextlib.asynccontextmanager
async def lifespan(_: FastAPI):
    # FastMCP's own app (and its lifespan) is not run, only its route: start its session manager.
    async with mcp.session_manager.run():
        yield


app = FastAPI(title="py.echo", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
# Browser clients on localhost (Inspector web UI in direct mode) need CORS on /mcp too.
app.add_middleware(
    CORSMiddleware,
    allow_origin_regex=r"https?://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?",
    allow_methods=["*"],
    allow_headers=["*"],
    expose_headers=["Mcp-Session-Id"],
)


class AepError(Exception):
    def __init__(self, status: int, code: str, message: str):
        self.status, self.code, self.message = status, code, message


def error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


@app.exception_handler(AepError)
async def on_aep_error(_: Request, exc: AepError) -> JSONResponse:
    return error(exc.status, exc.code, exc.message)


@app.exception_handler(RequestValidationError)
async def on_invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
    # FastAPI answers 422 with its own shape; AEP wants 400 invalid_request. This also covers
    # malformed JSON and a non-JSON content type (FastAPI reports both as validation errors).
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()))
    return error(400, "invalid_request", f"{where}: {first.get('msg', 'invalid request')}")


@app.exception_handler(StarletteHTTPException)
async def on_http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
    # Unknown routes and wrong methods still answer in the AEP error shape, never HTML.
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "invalid_request")
    return error(exc.status_code, code, str(exc.detail))


@app.get("/.well-known/aep")
def discovery() -> JSONResponse:
    return reply(manifest("2026-08-01"))


@app.get("/.well-known/agentstration")
def discovery_v1() -> JSONResponse:
    # --v1-canonical: like the C# reference, serve the canonical document on the V1 alias.
    return reply(manifest("2026-08-01" if args.v1_canonical else "1.0"))


@app.get("/aep/health")
def health() -> JSONResponse:
    return reply(Health(status="available"))


def provider(provider_id: str) -> ModelProviderDescriptor:
    found = PROVIDERS.get(provider_id.lower())  # provider ids match case-insensitively
    if found is None:
        raise AepError(404, "provider_unavailable", f"unknown model provider '{provider_id}'")
    return found


def check_chat(provider_id: str, req: ChatRequest) -> None:
    p = provider(provider_id)
    if req.model not in {m.id for m in p.models or []}:
        raise AepError(404, "model_unavailable", f"provider '{p.id}' has no model '{req.model}'")
    if not req.messages:  # as the C# reference answers
        raise AepError(400, "invalid_request", "At least one message is required.")


@app.get("/aep/model-providers")
def providers() -> JSONResponse:
    return reply(list(PROVIDERS.values()))


@app.get("/aep/model-providers/{provider_id}/health")
def provider_health(provider_id: str) -> JSONResponse:
    provider(provider_id)
    if args.health_loading:  # the C# llama.cpp/LocalAI extensions answer this while loading
        return reply(Health(status="loading", details="model is loading"))
    return reply(Health(status="available", details="echo is always ready"))


@app.get("/aep/model-providers/{provider_id}/models")
def models(provider_id: str) -> JSONResponse:
    return reply(provider(provider_id).models or [])


def last_user_text(req: ChatRequest) -> str:
    for message in reversed(req.messages):
        if message.role == "user":
            return " ".join(c.text for c in message.contents if c.kind == "text" and c.text)
    return ""


@app.post("/aep/model-providers/{provider_id}/chat")
def chat(provider_id: str, req: ChatRequest) -> JSONResponse:
    check_chat(provider_id, req)
    text = last_user_text(req)
    n = len(text.split())
    return reply(ChatResponse(
        messages=[Message(role="assistant", contents=[Content(kind="text", text=text)])],
        model=req.model, finish_reason="stop",
        usage=Usage(input_tokens=n, output_tokens=n, total_tokens=2 * n),
    ))


@app.post("/aep/model-providers/{provider_id}/chat/stream")
def chat_stream(provider_id: str, req: ChatRequest) -> StreamingResponse:
    # Validation (body, provider, model, messages) happens before the 200 headers go out, so those
    # failures stay ordinary JSON errors.
    check_chat(provider_id, req)
    words = last_user_text(req).split()

    async def events():
        for i, word in enumerate(words):
            update = ChatUpdate(contents=[Content(kind="text", text=word if i == 0 else " " + word)],
                                role="assistant", model=req.model)
            yield f"data: {json.dumps(wire(update), separators=(',', ':'))}\n\n"
            await asyncio.sleep(0)  # one event per chunk; the client sees them as they come
        n = len(words)
        last = ChatUpdate(model=req.model, finish_reason="stop",
                          usage=Usage(input_tokens=n, output_tokens=n, total_tokens=2 * n))
        yield f"data: {json.dumps(wire(last), separators=(',', ':'))}\n\n"

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"cache-control": "no-cache", "x-accel-buffering": "no"})


# FastMCP's app is a single route, exactly /mcp; we adopt that route instead of mounting the
# app: a Mount at "/mcp" redirects /mcp -> /mcp/, and a Mount at "/" would swallow every
# unknown AEP path and wrong method, answering them with plain-text 404s.
app.router.routes.extend(mcp.streamable_http_app().routes)


# ---- entry point ----------------------------------------------------------------------


async def serve(port: int) -> None:
    # Bind first so --port 0 gets a free port we can announce; uvicorn serves the socket.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:  # announce only once connections are accepted
        if task.done():
            return await task
        await asyncio.sleep(0.01)
    print(f"LISTENING http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    await task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--v1-canonical", action="store_true",
                        help="serve protocolVersion 2026-08-01 on /.well-known/agentstration too")
    parser.add_argument("--health-loading", action="store_true",
                        help='provider health answers {"status":"loading"}')
    parser.add_argument("--nulls", action="store_true", help="write absent optional members as null")
    global args
    args = parser.parse_args()
    asyncio.run(serve(args.port))


if __name__ == "__main__":
    main()
