"""MCP client with OAuth on the official Python SDK 1.x (py1 venv): `OAuthClientProvider`.

    mcp_oauth_client.py URL TOOL [ARGS_JSON] [--login NAME] [--auth-method METHOD]
                        [--redirect-uri URI] [--timeout SECONDS]

The SDK does the protocol: on the server's 401 it reads the protected resource metadata,
the authorization server's metadata, registers a client (RFC 7591; --auth-method:
client_secret_post (the SDK's default), client_secret_basic or none), picks the scopes
(WWW-Authenticate, else the metadata's scopes_supported), sends the authorization request
with PKCE S256 and `resource` (RFC 8707) and exchanges the code. This script plays the user:
its redirect_handler signs in headlessly on oidc-provider's development pages (any login,
any password: --login, default "user") and grants the consent, following redirects by hand
(httpx, cookies kept) until the redirect to --redirect-uri, which is never connected to;
its callback_handler hands the SDK that redirect's code and state. Then: initialize,
tools/list, tools/call TOOL with ARGS_JSON (default {}).

stdout: ONE JSON line {"tools": [names], "tool", "arguments", "result" (the call result as on
the wire), "authorizations": [{"resource", "scope", "code_challenge_method"} per
authorization request], "token": {"token_type", "scope", "expires_in", "refresh_token": bool}}
(never a token or a secret). Exit codes: 0; 2 the tool answered isError=true; 1 any failure
(the reason on stderr). Every wait is bounded: --timeout (default 60 s) for the whole run.
"""

import argparse
import json
import re
import sys
from urllib.parse import parse_qs, urljoin, urlparse

import anyio
import httpx
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree for the shared module
import _client_common as common  # noqa: E402

MAX_STEPS = 16  # requests of one login (it takes about seven)


class MemoryStorage:
    """The SDK's TokenStorage, in memory: one run, one registration."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class HeadlessUser:
    """redirect_handler + callback_handler: the login and consent pages, without a browser."""

    def __init__(self, login: str, redirect_uri: str) -> None:
        self.login, self.redirect_uri = login, redirect_uri
        self.authorizations: list[dict[str, str | None]] = []
        self.final: str | None = None

    async def redirect_handler(self, authorization_url: str) -> None:
        query = {k: v[0] for k, v in parse_qs(urlparse(authorization_url).query).items()}
        self.authorizations.append({k: query.get(k) for k in ("resource", "scope", "code_challenge_method")})
        self.final = await self.walk(authorization_url)

    async def callback_handler(self) -> tuple[str, str | None]:
        query = parse_qs(urlparse(self.final or "").query)
        if "error" in query:
            raise RuntimeError(f"authorization refused: {query['error'][0]}: "
                               f"{query.get('error_description', [''])[0]}")
        if "code" not in query:
            raise RuntimeError("the redirect to the client carries no code")
        return query["code"][0], query.get("state", [None])[0]

    async def walk(self, url: str) -> str:
        server = urlparse(url).netloc
        async with httpx.AsyncClient(follow_redirects=False, timeout=10) as http:  # its own cookie jar
            response = await http.get(url)
            for _ in range(MAX_STEPS):
                if response.is_redirect:
                    url = urljoin(str(response.url), response.headers["location"])
                    if urlparse(url).netloc != server:
                        if not url.startswith(self.redirect_uri):
                            raise RuntimeError(f"redirected elsewhere than the client: {url}")
                        return url
                    response = await http.get(url)
                    continue
                action, prompt = interaction_form(response)
                fields = {"prompt": prompt}
                if prompt == "login":
                    fields |= {"login": self.login, "password": "any"}
                response = await http.post(urljoin(str(response.url), action), data=fields)
        raise RuntimeError(f"no redirect to the client after {MAX_STEPS} requests")


def interaction_form(response: httpx.Response) -> tuple[str, str]:
    """The devInteractions page's form action and its hidden prompt (login or consent)."""
    form = re.search(r'<form[^>]*action="([^"]+)"', response.text)
    prompt = re.search(r'name="prompt" value="([^"]+)"', response.text)
    if not (form and prompt):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.text)).strip()[:400]
        raise RuntimeError(f"{response.url}: {response.status_code}, not a login or consent page: {text}")
    return form.group(1).replace("&amp;", "&"), prompt.group(1)


async def run(ns: argparse.Namespace) -> int:
    storage, user = MemoryStorage(), HeadlessUser(ns.login, ns.redirect_uri)
    oauth = OAuthClientProvider(
        server_url=ns.url,
        client_metadata=OAuthClientMetadata(
            client_name="aep-peers mcp_oauth_client.py", redirect_uris=[ns.redirect_uri],
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            token_endpoint_auth_method=ns.auth_method),
        storage=storage, redirect_handler=user.redirect_handler, callback_handler=user.callback_handler,
        timeout=ns.timeout)
    with anyio.fail_after(ns.timeout):
        async with create_mcp_http_client(auth=oauth, timeout=httpx.Timeout(30, read=60)) as http:
            async with streamable_http_client(ns.url, http_client=http) as (read, write, _):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = [tool.name for tool in (await session.list_tools()).tools]
                    result = common.dump(await session.call_tool(ns.tool, ns.arguments))
    tokens = storage.tokens
    common.line(tools=tools, tool=ns.tool, arguments=ns.arguments, result=result,
                authorizations=user.authorizations,
                token=tokens and {"token_type": tokens.token_type, "scope": tokens.scope,
                                  "expires_in": tokens.expires_in,
                                  "refresh_token": tokens.refresh_token is not None})
    return 2 if result.get("isError") else 0


def main() -> int:
    common.setup_logging()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="Streamable HTTP endpoint, e.g. http://127.0.0.1:PORT/mcp")
    parser.add_argument("tool", help="the tool to call")
    parser.add_argument("arguments", nargs="?", default={}, type=json.loads, help="its arguments, a JSON object")
    parser.add_argument("--login", default="user", help="the login typed on the sign-in page (the token's sub)")
    parser.add_argument("--auth-method", default="client_secret_post",
                        choices=["client_secret_post", "client_secret_basic", "none"])
    parser.add_argument("--redirect-uri", default="http://127.0.0.1:8976/callback",
                        help="registered and sent as redirect_uri; nothing listens there")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds for the whole run")
    ns = parser.parse_args()
    try:
        return anyio.run(run, ns)
    except TimeoutError:
        print(f"error: not done within {ns.timeout} s", file=sys.stderr)
        return 1
    except Exception as exc:  # ExceptionGroup included
        return common.fail(exc)


if __name__ == "__main__":
    sys.exit(main())
