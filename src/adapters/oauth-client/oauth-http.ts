import { Dispatcher, fetch, Response } from 'undici';
import { UpstreamAuthorizationError } from '../../application/ports/upstream-authorization.port';
import { UpstreamRefusal } from '../../application/ports/upstream-refusal';
import { byteLimited } from '../mcp/upstream/byte-limited-body';
import { redirectAllowed } from '../outbound/bounded-fetch';

export interface OAuthHttpOptions {
  /**
   * Every connection goes through it: the pinned agent of upstream MCP
   * requests (pinned-agent.ts), so the SSRF guard and MCP_UPSTREAM_ALLOWLIST
   * decide here exactly as they do for the upstream itself.
   */
  dispatcher: Dispatcher;
  /** In production every URL must be https, as for the other URLs keygate calls. */
  production: boolean;
  /** One deadline per request: connection, redirects and body. */
  timeoutMs: number;
  maxBytes: number;
}

export interface OAuthAnswer {
  status: number;
  /** The parsed JSON body; undefined when the body is not JSON. */
  body: unknown;
}

/** Metadata moving once or twice is normal; a longer chain is not. */
const MAX_REDIRECTS = 3;

/**
 * The one way the OAuth client talks to an authorization server or a
 * protected resource's metadata: bounded in bytes and time, never from https
 * down to http, never to a refused address. Failures are
 * UpstreamAuthorizationError (or the guard's UpstreamRefusal) whose text
 * names `what` was asked, never what was sent.
 */
export class OAuthHttp {
  constructor(private readonly options: OAuthHttpOptions) {}

  /** GET a JSON document, following up to three redirects that keep to https (or http outside production). */
  get(url: string, what: string): Promise<OAuthAnswer> {
    return this.send(url, what, { method: 'GET', headers: {} });
  }

  /** POST a form (token, revocation endpoints); redirects are not followed. */
  postForm(url: string, what: string, form: URLSearchParams, headers: Record<string, string> = {}): Promise<OAuthAnswer> {
    const init = { method: 'POST', headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' }, body: form.toString() };
    return this.send(url, what, init);
  }

  /** POST a JSON body (RFC 7591 registration); redirects are not followed. */
  postJson(url: string, what: string, json: unknown): Promise<OAuthAnswer> {
    return this.send(url, what, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(json) });
  }

  private async send(
    url: string,
    what: string,
    init: { method: string; headers: Record<string, string>; body?: string },
  ): Promise<OAuthAnswer> {
    const { dispatcher, timeoutMs, maxBytes } = this.options;
    const signal = AbortSignal.timeout(timeoutMs);
    let current = this.allowed(url, what);
    try {
      for (let redirects = 0; ; redirects += 1) {
        const res = await fetch(current, {
          ...init,
          headers: { Accept: 'application/json', 'User-Agent': 'keygate', ...init.headers },
          redirect: 'manual',
          dispatcher,
          signal,
        });
        if (res.status >= 300 && res.status < 400) {
          await res.body?.cancel();
          current = this.redirect(current, res.headers.get('location'), redirects, what, init.method);
          continue;
        }
        return { status: res.status, body: await this.json(res, what, maxBytes) };
      }
    } catch (error) {
      throw this.failure(error, what, signal.aborted);
    }
  }

  private allowed(url: string, what: string): URL {
    const parsed = URL.canParse(url) ? new URL(url) : null;
    if (parsed === null || !(parsed.protocol === 'https:' || (!this.options.production && parsed.protocol === 'http:'))) {
      throw new UpstreamAuthorizationError('insecure_url', `${what} is not an https URL`);
    }
    return parsed;
  }

  private redirect(from: URL, location: string | null, redirects: number, what: string, method: string): URL {
    if (method !== 'GET') throw new UpstreamAuthorizationError('unreachable', `${what} answered a redirect`);
    if (redirects >= MAX_REDIRECTS)
      throw new UpstreamAuthorizationError('unreachable', `${what} redirected more than ${MAX_REDIRECTS} times`);
    const to = location !== null && URL.canParse(location, from.href) ? new URL(location, from) : null;
    if (to === null) throw new UpstreamAuthorizationError('unreachable', `${what} answered a redirect without a usable Location`);
    if (!redirectAllowed(from, to)) throw new UpstreamAuthorizationError('insecure_url', `${what} redirected from https to http; refused`);
    return this.allowed(to.href, what);
  }

  private async json(res: Response, what: string, maxBytes: number): Promise<unknown> {
    if (!res.body) return undefined;
    const tooLarge = () => new UpstreamAuthorizationError('unreachable', `${what} answered more than ${maxBytes} bytes`);
    if (Number(res.headers.get('content-length') ?? 0) > maxBytes) {
      await res.body.cancel();
      throw tooLarge();
    }
    const text = await new Response(byteLimited(res.body, maxBytes, tooLarge)).text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  /** `late`: the deadline passed, whatever undici made of it (an AbortError, a TimeoutError, a broken body). */
  private failure(error: unknown, what: string, late: boolean): Error {
    if (error instanceof UpstreamAuthorizationError || error instanceof UpstreamRefusal) return error;
    const cause = (error as { cause?: unknown } | null)?.cause;
    if (cause instanceof UpstreamRefusal || cause instanceof UpstreamAuthorizationError) return cause;
    if (late) return new UpstreamAuthorizationError('unreachable', `${what} did not answer within ${this.options.timeoutMs} ms`);
    return new UpstreamAuthorizationError('unreachable', `${what} could not be reached`);
  }
}
