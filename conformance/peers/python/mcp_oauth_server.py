"""An OAuth-protected MCP server on the official Python SDK 1.x (py1 venv): FastMCP as a
resource server of the authorization server at --issuer (oidc-provider), so that
mcp_oauth_client.py can be checked end to end against servers nobody here wrote.

    mcp_oauth_server.py --issuer http://127.0.0.1:PORT [--port 0] [--scopes "files:read"]

FastMCP does the resource server's protocol part: protected resource metadata (RFC 9728)
at /.well-known/oauth-protected-resource/mcp, 401 with WWW-Authenticate (resource_metadata),
403 insufficient_scope below --scopes, the resource check. The token check is the SDK's
TokenVerifier protocol, done here with PyJWT against the issuer's JWKS (fetched once at
start): RFC 9068 JWTs only (typ at+jwt), RS256 or ES256, issuer and audience (the MCP URL)
exact. Tools: whoami() -> {"sub", "client_id", "scopes"} of the caller's token; echo(text).

stdout: one line `LISTENING http://127.0.0.1:PORT/mcp` once connections are accepted.
"""

import argparse
import asyncio
import socket
import sys

import httpx
import jwt
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.fastmcp import FastMCP


class JwtVerifier:
    """RFC 9068 access tokens of one issuer for one audience."""

    def __init__(self, issuer: str, audience: str) -> None:
        self.issuer, self.audience = issuer, audience
        jwks = httpx.get(f"{issuer}/jwks", timeout=10).raise_for_status().json()
        self.keys = {key.key_id: key for key in jwt.PyJWKSet.from_dict(jwks).keys}

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            header = jwt.get_unverified_header(token)
            if header.get("typ") != "at+jwt" or header.get("kid") not in self.keys:
                return None
            claims = jwt.decode(token, self.keys[header["kid"]], algorithms=["RS256", "ES256"],
                                audience=self.audience, issuer=self.issuer,
                                options={"require": ["exp", "iat", "sub", "client_id"]})
        except jwt.PyJWTError:
            return None  # expired, wrong audience or issuer, bad signature: a 401
        return AccessToken(token=token, client_id=claims["client_id"],
                           scopes=claims.get("scope", "").split(), expires_at=claims["exp"],
                           resource=self.audience, subject=claims["sub"])


def app_for(issuer: str, port: int, scopes: list[str]):
    resource = f"http://127.0.0.1:{port}/mcp"
    mcp = FastMCP("oauth-peer", host="127.0.0.1", port=port,
                  token_verifier=JwtVerifier(issuer, resource),
                  auth=AuthSettings(issuer_url=issuer, resource_server_url=resource,
                                    required_scopes=scopes, validate_token_resource=True))

    @mcp.tool()
    def whoami() -> dict:
        """The subject, client and scopes of the caller's access token."""
        token = get_access_token()
        return {"sub": token.subject, "client_id": token.client_id, "scopes": token.scopes}

    @mcp.tool()
    def echo(text: str) -> str:
        """Returns the text."""
        return text

    return mcp.streamable_http_app()


async def serve(ns: argparse.Namespace) -> None:
    # Bind first: the resource URL (the tokens' audience) carries the port.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", ns.port))
    port = sock.getsockname()[1]
    app = app_for(ns.issuer.rstrip("/"), port, ns.scopes.split())
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:  # announce only once connections are accepted
        if task.done():
            return await task
        await asyncio.sleep(0.01)
    print(f"LISTENING http://127.0.0.1:{port}/mcp", flush=True)
    await task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--issuer", required=True, help="the authorization server, e.g. http://127.0.0.1:PORT")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--scopes", default="files:read", help="space-separated scopes every call needs")
    asyncio.run(serve(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
