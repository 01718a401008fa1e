// A real OAuth 2.1 / OpenID Connect authorization server for tests: panva's oidc-provider
// (OpenID Certified), configured the way an MCP deployment needs it (see ../README.md,
// "oidc-provider").
//
//   oidc_provider.mjs [--port N] [--config JSON]        (normally via $P/bin/oidc-provider)
//
// --port: 0 (default) = any free port; binds 127.0.0.1 only. --config (or the environment
// variable AEP_OIDC_CONFIG, which keeps client secrets out of process listings): a JSON
// object, every member optional:
//   scopes          resource scopes, array or space-separated ("mcp files:read files:write tools:call")
//   accessTokenTtl  seconds, every access token (default 3600)
//   refreshTokenTtl seconds (default oidc-provider's 14 days)
//   clients         pre-registered clients, oidc-provider client metadata (snake_case)
//   opaqueResources resource URLs whose tokens are opaque (introspectable) instead of JWTs
//   defaultResource the resource of a request that names none (default: none, as RFC 8707)
//   refreshWithoutOfflineAccess  issue refresh tokens to every client allowed the grant
//   signingAlg      "RS256" (default) or "ES256", the JWT access tokens' alg
//
// stdout: ONE JSON line once listening: {"issuer", "port", and the endpoints}; nothing else
// (oidc-provider's notices go to stderr). Exit 2 on a bad command line or configuration.
import http from 'node:http';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';

// oidc-provider lives in <peers>/npm/node_modules, not next to this script: the wrapper sets
// NODE_PATH, which require() honours and ESM `import` does not.
const require = createRequire(import.meta.url);

function fail(msg) {
  process.stderr.write(`oidc_provider: ${msg}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const out = { port: 0, config: process.env.AEP_OIDC_CONFIG || '{}' };
  for (let i = 0; i < argv.length; i += 1) {
    const value = argv[i + 1];
    if (argv[i] === '--port' && value !== undefined) out.port = Number(value);
    else if (argv[i] === '--config' && value !== undefined) out.config = value;
    else fail(`usage: oidc_provider.mjs [--port N] [--config JSON] (got ${argv[i]})`);
    i += 1;
  }
  if (!Number.isInteger(out.port) || out.port < 0 || out.port > 65535) fail('--port: 0..65535');
  try {
    out.config = JSON.parse(out.config);
  } catch (e) {
    fail(`--config is not JSON: ${e.message}`);
  }
  return out;
}

// A fresh key pair per run: tokens of one run never verify against another's JWKS.
function signingKey(type, options, alg) {
  const { privateKey } = crypto.generateKeyPairSync(type, options);
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, alg, use: 'sig', kid: `${alg.toLowerCase()}-${crypto.randomBytes(6).toString('hex')}` };
}

function configuration(config) {
  const scopes = Array.isArray(config.scopes)
    ? config.scopes
    : (config.scopes ?? 'mcp files:read files:write tools:call').split(' ').filter(Boolean);
  const accessTokenTtl = config.accessTokenTtl ?? 3600;
  const opaque = new Set(config.opaqueResources ?? []);
  const alg = config.signingAlg ?? 'RS256';
  if (!['RS256', 'ES256'].includes(alg)) fail(`signingAlg: RS256 or ES256, not ${alg}`);

  return {
    clients: config.clients ?? [],
    jwks: {
      // The first key of a type signs; RS256 is what oidc-provider uses unless told otherwise.
      keys: [
        signingKey('rsa', { modulusLength: 2048 }, 'RS256'),
        signingKey('ec', { namedCurve: 'P-256' }, 'ES256'),
      ],
    },
    // Every scope a client may register (RFC 7591 `scope`) must be listed here, or
    // registration fails with "scope must only contain Authorization Server supported scope
    // values" (the MCP Python SDK registers with the scopes it is about to ask for).
    scopes: ['openid', 'offline_access', ...scopes],
    // Any login is an account whose subject is the login; no claims beyond `sub`.
    findAccount: (ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    // OAuth 2.1: the authorization code flow only (oidc-provider's default adds implicit and
    // hybrid response types, advertised in the metadata).
    responseTypes: ['code'],
    features: {
      devInteractions: { enabled: true }, // login + consent pages, plain HTML forms
      registration: { enabled: true, initialAccessToken: false }, // open RFC 7591
      introspection: { enabled: true }, // RFC 7662, opaque tokens only (JWTs are refused)
      revocation: { enabled: true }, // RFC 7009
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A request naming no resource gets the configured default (if any).
        defaultResource: async (ctx, client, oneOf) => oneOf ?? config.defaultResource ?? undefined,
        // The token endpoint may omit `resource` when the grant has exactly one.
        useGrantedResource: async () => true,
        // Any absolute resource URL is a resource server (tests pick ports at run time); its
        // tokens are JWTs (RFC 9068) whose audience is the resource URL itself.
        getResourceServerInfo: async (ctx, resource) => ({
          scope: scopes.join(' '),
          audience: resource,
          accessTokenTTL: accessTokenTtl,
          accessTokenFormat: opaque.has(resource) ? 'opaque' : 'jwt',
          jwt: { sign: { alg } },
        }),
      },
    },
    issueRefreshToken: async (ctx, client, code) => client.grantTypeAllowed('refresh_token')
      && (config.refreshWithoutOfflineAccess === true || code.scopes.has('offline_access')),
    ttl: {
      // Tokens without a resource (no audience) follow the same TTL.
      AccessToken: accessTokenTtl,
      ClientCredentials: accessTokenTtl,
      ...(config.refreshTokenTtl ? { RefreshToken: config.refreshTokenTtl } : {}),
      // oidc-provider's defaults, spelled out: it prints a NOTICE whenever a default TTL is used.
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      Grant: 14 * 24 * 3600,
    },
  };
}

const args = parseArgs(process.argv.slice(2));
let Provider;
try {
  ({ Provider } = require('oidc-provider'));
} catch (e) {
  fail(`oidc-provider not found (run conformance/peers/install.sh; NODE_PATH=${process.env.NODE_PATH}): ${e.message}`);
}
// oidc-provider writes its NOTICEs with console.info (stdout): keep stdout for our one line.
console.info = (...a) => console.error(...a);

const server = http.createServer();
server.on('error', (e) => fail(`listen: ${e.message}`));
// The issuer must be the exact URL clients discover, port included: listen first, then build
// the provider with the port that was assigned, then announce it.
server.listen(args.port, '127.0.0.1', async () => {
  const { port } = server.address();
  const issuer = `http://127.0.0.1:${port}`;
  let provider;
  try {
    provider = new Provider(issuer, configuration(args.config));
  } catch (e) {
    fail(`configuration: ${e.message}`);
  }
  // oidc-provider checks a static client's metadata on first use; check them now, so that a
  // bad one fails the start rather than a request.
  for (const { client_id: id } of args.config.clients ?? []) {
    try {
      await provider.Client.find(String(id));
    } catch (e) {
      fail(`client ${id}: ${e.message}${e.error_description ? ` (${e.error_description})` : ''}`);
    }
  }
  server.on('request', provider.callback());
  const at = (path) => `${issuer}${path}`;
  process.stdout.write(`${JSON.stringify({
    issuer,
    port,
    authorization_endpoint: at('/auth'),
    token_endpoint: at('/token'),
    registration_endpoint: at('/reg'),
    introspection_endpoint: at('/token/introspection'),
    revocation_endpoint: at('/token/revocation'),
    jwks_uri: at('/jwks'),
  })}\n`);
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
