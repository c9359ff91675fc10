import { AuthorizationRequest } from './authorization-request';

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function hidden(name: string, value: string | null): string {
  return value === null ? '' : `<input type="hidden" name="${name}" value="${escape(value)}">`;
}

/** The one click of the development sign-in: no script, so the strict CSP holds here too. */
export function signInPage(request: AuthorizationRequest, userId: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>keygate development sign-in</title><link rel="stylesheet" href="sign-in.css"></head>
<body><main>
<h1>Development sign-in</h1>
<p>This identity provider exists only while <code>JWT_JWKS_URI</code> is unset. It signs you in as the development user
<code>${escape(userId)}</code>, an admin, without a password.</p>
<form method="post" action="authorize">
${hidden('response_type', 'code')}${hidden('client_id', request.clientId)}${hidden('redirect_uri', request.redirectUri)}
${hidden('state', request.state)}${hidden('code_challenge', request.codeChallenge)}${hidden('code_challenge_method', 'S256')}${hidden('nonce', request.nonce)}
<button type="submit">Sign in as the development user</button>
</form>
</main></body></html>`;
}

export const SIGN_IN_CSS = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1f24}
main{max-width:32rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:8px;border:1px solid #d0d7de}
h1{font-size:1.4rem;margin-top:0}code{background:#eef1f4;padding:0 .25rem;border-radius:3px}
button{font:inherit;padding:.6rem 1.2rem;background:#0b5cad;color:#fff;border:0;border-radius:6px;cursor:pointer}
button:focus-visible{outline:3px solid #f0a500;outline-offset:2px}`;
