"""Client of an OpenAI Chat Completions server (the gateway's /v1) on the official OpenAI
Python SDK 2.x (runs in the py1 venv).

    openai_gateway_client.py BASE_URL models
    openai_gateway_client.py BASE_URL chat --model M --text T [--stream] [--include-usage]
                                           [--max-tokens N] [--temperature X]
    openai_gateway_client.py BASE_URL tools --model M --text T --result R [--stream]
    openai_gateway_client.py BASE_URL tool-choice --model M --text T --function NAME [--max-tokens N]
    openai_gateway_client.py BASE_URL drop --model M --after N [--hold]

BASE_URL is the server's, without /v1. Common options: --api-key KEY (default "unused"),
--timeout SECONDS (default 60). The SDK never retries (max_retries=0).

One JSON line per step on stdout:
  models       {"id", "object", "owned_by"} per model (`client.models.list()`).
  chat         {"id", "model", "object", "text", "finish_reason", "usage", "tool_calls"}; streamed
               also "chunks" (how many), "ids" and "objects" (the distinct ones), "usage_choices"
               (how many choices the chunk carrying usage had). usage is
               {"prompt_tokens", "completion_tokens", "total_tokens"} or null.
  tools        a round trip with a function `lookup(city)`: {"step": "call", "finish_reason",
               "content", "tool_calls": [{"id", "type", "name", "arguments"}]}, then the answer
               message goes back as the SDK returned it, with a tool message holding R:
               {"step": "answer", "text", "finish_reason"}. --stream: the first step through the
               SDK's stream helper (`chat.completions.stream`, which accumulates the tool-call
               deltas into a final completion; its tool is `strict`, as the helper requires).
  tool-choice  offers `get_weather(city)` with tool_choice naming NAME:
               {"finish_reason", "content", "tool_calls": [...] as above, "usage"}.
  drop         streams, reads N chunks that carry text, closes the SDK stream (`Stream.close()`:
               the response and its connection go away): {"closed": true, "chunks", "text"}.
               --hold: then keeps the process (and its client) alive until stdin closes, so
               whoever runs it can see what closing the stream did while the process lives.

An error answer is an answer, not a failure: an `openai.APIStatusError` (a 4xx or 5xx) or the
`openai.APIError` the SDK raises for an error event in a stream prints
{"error": {"class", "status", "type", "code", "param", "message"}} ("class" being the SDK's
exception, `NotFoundError` for a 404; "status" null for an error event) and exits 0. Any other
failure (no answer at all included): exit 1, traceback on stderr. A venv without the SDK: exit 3
and a hint to run install.sh.
"""

import argparse
import json
import sys

try:
    import openai
except ImportError:  # an installation older than requirements-py1.txt
    print("openai is not installed in this venv: run `bash conformance/peers/install.sh`", file=sys.stderr)
    sys.exit(3)


def emit(line: dict) -> None:
    print(json.dumps(line), flush=True)


def usage_of(usage) -> dict | None:
    if usage is None:
        return None
    return {k: getattr(usage, k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}


def calls_of(tool_calls) -> list:
    return [
        {"id": c.id, "type": c.type, "name": c.function.name, "arguments": c.function.arguments}
        for c in tool_calls or []
    ]


def user(text: str) -> list:
    return [{"role": "user", "content": text}]


def models(client, ns) -> None:
    for model in client.models.list():  # a SyncPage: iterating follows any pages
        emit({"id": model.id, "object": model.object, "owned_by": model.owned_by})


def chat(client, ns) -> None:
    extra = {}
    if ns.max_tokens is not None:
        extra["max_completion_tokens"] = ns.max_tokens
    if ns.temperature is not None:
        extra["temperature"] = ns.temperature
    if not ns.stream:
        answer = client.chat.completions.create(model=ns.model, messages=user(ns.text), **extra)
        choice = answer.choices[0]
        emit({
            "id": answer.id, "model": answer.model, "object": answer.object,
            "text": choice.message.content, "finish_reason": choice.finish_reason,
            "usage": usage_of(answer.usage), "tool_calls": calls_of(choice.message.tool_calls),
        })
        return
    if ns.include_usage:
        extra["stream_options"] = {"include_usage": True}
    stream = client.chat.completions.create(model=ns.model, messages=user(ns.text), stream=True, **extra)
    text, finish, usage, usage_choices, chunks, ids, objects, model = "", None, None, None, 0, [], [], None
    for chunk in stream:
        chunks += 1
        model = chunk.model
        for seen, value in ((ids, chunk.id), (objects, chunk.object)):
            if value not in seen:
                seen.append(value)
        for choice in chunk.choices:
            text += choice.delta.content or ""
            finish = choice.finish_reason or finish
        if chunk.usage is not None:
            usage, usage_choices = chunk.usage, len(chunk.choices)
    emit({
        "id": ids[0] if ids else None, "model": model, "object": "chat.completion.chunk",
        "text": text, "finish_reason": finish, "usage": usage_of(usage), "tool_calls": [],
        "chunks": chunks, "ids": ids, "objects": objects, "usage_choices": usage_choices,
    })


def lookup_tool(strict: bool) -> dict:
    function = {
        "name": "lookup",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    }
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def tools(client, ns) -> None:
    messages = user(ns.text)
    offered = [lookup_tool(ns.stream)]
    if ns.stream:
        with client.chat.completions.stream(model=ns.model, messages=messages, tools=offered) as stream:
            for _event in stream:
                pass
            first = stream.get_final_completion()
    else:
        first = client.chat.completions.create(model=ns.model, messages=messages, tools=offered)
    choice = first.choices[0]
    calls = calls_of(choice.message.tool_calls)
    emit({"step": "call", "finish_reason": choice.finish_reason, "content": choice.message.content,
          "tool_calls": calls})
    if not calls:
        return
    # As the SDK's documentation does it: the answer message goes back as it came.
    messages.append(choice.message if not ns.stream else choice.message.model_dump(exclude_none=True))
    for call in calls:
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": ns.result})
    answer = client.chat.completions.create(model=ns.model, messages=messages, tools=offered)
    emit({"step": "answer", "text": answer.choices[0].message.content,
          "finish_reason": answer.choices[0].finish_reason})


def tool_choice(client, ns) -> None:
    weather = {
        "type": "function",
        "function": {
            "name": ns.function,
            "description": "The current weather in a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
    answer = client.chat.completions.create(
        model=ns.model, messages=user(ns.text), tools=[weather],
        tool_choice={"type": "function", "function": {"name": ns.function}},
        max_completion_tokens=ns.max_tokens, temperature=0,
    )
    choice = answer.choices[0]
    emit({"finish_reason": choice.finish_reason, "content": choice.message.content,
          "tool_calls": calls_of(choice.message.tool_calls), "usage": usage_of(answer.usage)})


def drop(client, ns) -> None:
    stream = client.chat.completions.create(model=ns.model, messages=user("go on"), stream=True)
    text, chunks = "", 0
    for chunk in stream:
        piece = "".join(c.delta.content or "" for c in chunk.choices)
        if piece:
            text += piece
            chunks += 1
        if chunks >= ns.after:
            break
    stream.close()
    emit({"closed": True, "chunks": chunks, "text": text})
    if ns.hold:
        sys.stdin.read()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base_url")
    parser.add_argument("--api-key", default="unused")
    parser.add_argument("--timeout", type=float, default=60.0)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("models")
    p = commands.add_parser("chat")
    p.add_argument("--model", required=True)
    p.add_argument("--text", required=True)
    p.add_argument("--stream", action="store_true")
    p.add_argument("--include-usage", action="store_true")
    p.add_argument("--max-tokens", type=int)
    p.add_argument("--temperature", type=float)
    p = commands.add_parser("tools")
    p.add_argument("--model", required=True)
    p.add_argument("--text", required=True)
    p.add_argument("--result", required=True)
    p.add_argument("--stream", action="store_true")
    p = commands.add_parser("tool-choice")
    p.add_argument("--model", required=True)
    p.add_argument("--text", required=True)
    p.add_argument("--function", required=True)
    p.add_argument("--max-tokens", type=int, default=64)
    p = commands.add_parser("drop")
    p.add_argument("--model", required=True)
    p.add_argument("--after", type=int, required=True)
    p.add_argument("--hold", action="store_true")
    ns = parser.parse_args()

    client = openai.OpenAI(base_url=ns.base_url.rstrip("/") + "/v1", api_key=ns.api_key,
                           timeout=ns.timeout, max_retries=0)
    run = {"models": models, "chat": chat, "tools": tools, "tool-choice": tool_choice, "drop": drop}
    try:
        run[ns.command](client, ns)
    except openai.APIConnectionError:  # no answer at all (refused, timed out): a failure
        raise
    except openai.APIError as error:  # an error answer, or an error event in a stream
        body = error.body if isinstance(error.body, dict) else {}  # the answer's "error" member
        emit({"error": {
            "class": type(error).__name__, "status": getattr(error, "status_code", None),
            "type": error.type, "code": error.code, "param": error.param,
            "message": body.get("message", error.message),
        }})
    return 0


if __name__ == "__main__":
    sys.exit(main())
