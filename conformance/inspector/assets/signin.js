// Signing in to an extension that is an OAuth 2.1 protected resource. The Inspector's
// server is the OAuth client: it finds the authorization server, registers (or uses the
// client id given), builds the authorization URL (PKCE, state, resource) and receives the
// redirect on its own /oauth/callback. The page opens that URL in a popup and follows the
// sign-in's state; tokens never reach it.
import { h, field, errorBox } from './dom.js';
import { TIMEOUT, ApiError, api } from './api.js';

const POLL_MS = 400;
// Past a trip's own expiry, how long the page still waits for the server to say so.
const GRACE_MS = 60000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Offers a sign-in to `target` ({url, revision}) in `area`; `onSignedIn(signIn)` runs once
// every resource has its token.
export function offerSignIn(area, target, onSignedIn) {
  const id = `sign-in-${Math.random().toString(36).slice(2, 8)}`;
  const clientId = h('input', { type: 'text', autocomplete: 'off', placeholder: 'none: dynamic registration' });
  const scope = h('input', { type: 'text', autocomplete: 'off', placeholder: 'the extension\'s' });
  const button = h('button', { type: 'button' }, `Sign in to ${target.url}`);
  const cancel = h('button', { type: 'button', hidden: true }, 'Cancel sign-in');
  const link = h('p', { hidden: true });
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite', 'aria-label': 'Sign-in status' });
  const errors = h('div');
  area.append(h('section', { class: 'sign-in', 'aria-label': 'Sign in' },
    h('h3', {}, 'Sign in with OAuth'),
    h('p', { class: 'hint' }, 'The Inspector signs in as an OAuth client of the extension\'s authorization server, to its AEP routes and to each MCP server that asks (each its own token). The authorization server\'s page opens in a new window; the tokens stay on the Inspector\'s server.'),
    h('div', { class: 'row' },
      field(`${id}-client`, 'Client ID (optional)', clientId),
      field(`${id}-scope`, 'Scope (optional)', scope)),
    h('div', { class: 'actions' }, button, cancel), link, status, errors));

  let running = null; // {id, cancelled}
  cancel.addEventListener('click', async () => {
    if (!running) return;
    running.cancelled = true;
    try { await api('DELETE', `/api/sign-ins/${running.id}`, undefined, { what: 'cancel the sign-in' }); } catch { /* gone already */ }
    status.textContent = `Sign-in to ${target.url} cancelled.`;
  });

  button.addEventListener('click', async () => {
    errors.replaceChildren();
    link.hidden = true;
    // Opened within the click, so no popup blocker stops it; sent to the authorization
    // server once the Inspector has the URL.
    const popup = window.open('', 'aep-inspector-sign-in', 'popup,width=600,height=760');
    button.disabled = true;
    status.textContent = `Finding the authorization server of ${target.url}…`;
    const run = { id: null, cancelled: false };
    running = run;
    try {
      let signIn = await api('POST', '/api/sign-ins', { url: target.url, revision: target.revision, clientId: clientId.value, scope: scope.value },
        { ms: TIMEOUT.connect, what: `start signing in to ${target.url}` });
      run.id = signIn.id;
      cancel.hidden = false;
      let trip = null;
      let deadline = 0;
      while (signIn.status === 'pending' && !run.cancelled) {
        if (signIn.trip && signIn.trip !== trip) {
          trip = signIn.trip;
          deadline = Date.now() + signIn.expiresInSeconds * 1000 + GRACE_MS;
          if (trip === 1) follow(popup, signIn.authorizationUrl);
          link.replaceChildren('If no window opened: ', h('a', { href: signIn.authorizationUrl, target: '_blank', rel: 'opener' }, `open the sign-in page of ${signIn.issuer}`), '.');
          link.hidden = Boolean(popup);
        }
        status.textContent = signIn.trip
          ? `Signing in to ${signIn.resource} at ${signIn.issuer} (step ${signIn.trip}; it expires in ${signIn.expiresInSeconds} s): log in and consent in the window that opened.`
          : `Signing in to ${target.url}: ${signIn.step}…`;
        if (deadline && Date.now() > deadline) throw new ApiError({ code: 'timed_out', message: `the sign-in to ${target.url} did not end in time` });
        await sleep(POLL_MS);
        if (run.cancelled) break;
        signIn = await api('GET', `/api/sign-ins/${run.id}`, undefined, { what: 'the sign-in' });
      }
      if (run.cancelled) return;
      if (signIn.status === 'failed') throw new ApiError(signIn.error);
      const names = signIn.resources.map((r) => r.what).join(', ');
      status.textContent = `Signed in to ${target.url}: ${names}. The Inspector holds the tokens.`;
      link.hidden = true;
      await onSignedIn(signIn);
    } catch (e) {
      if (run.cancelled) return;
      status.textContent = `Could not sign in to ${target.url}.`;
      errors.replaceChildren(errorBox(e));
      if (popup && !run.id) popup.close();
    } finally {
      button.disabled = false;
      cancel.hidden = true;
      if (running === run) running = null;
    }
  });
}

function follow(popup, url) {
  if (popup && !popup.closed) popup.location.href = url;
}

// Signs out of sign-in `id`: its tokens are forgotten and its connections closed; the ids
// of the connections closed.
export async function signOut(id) {
  const answer = await api('DELETE', `/api/sign-ins/${id}`, undefined, { what: 'sign out' });
  return answer.closed;
}
