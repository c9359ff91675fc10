import fc from 'fast-check';
import { encodeBody, Transport } from './http-variants';
import { JsonText } from './json-text';
import { RawRequest, RawResponse } from './raw-http';

/** A generated request, with what it was made from kept for the report. */
export interface FuzzRequest extends RawRequest {
  /** The body before encoding (JSON text, possibly malformed). */
  text?: JsonText;
  transport?: Transport;
  /** Says which credential was used instead of printing a JWT or key. */
  credential: string;
}

/** Collapses runs (`[[[[…` ×3000) and cuts, then escapes NUL and lone surrogates so they show. */
export function summarize(value: string, max = 400): string {
  const collapsed = value.replace(/(.{1,40}?)\1{4,}/gs, (run, unit: string) => `⟪${unit}×${run.length / unit.length}⟫`);
  const cut = collapsed.length > max ? `${collapsed.slice(0, max)}…(+${collapsed.length - max} chars)` : collapsed;
  return JSON.stringify(cut);
}

export function describeRequest(r: FuzzRequest): string {
  const headers = Object.entries(r.headers)
    .filter(([name]) => !/^(authorization|x-api-key)$/i.test(name))
    .map(([name, value]) => `${name}: ${summarize(value, 120)}`);
  const body =
    r.text === undefined
      ? 'no body'
      : `body ${r.body?.length ?? 0} bytes${r.transport && r.transport !== 'plain' ? ` (${r.transport})` : ''}: ${summarize(r.text)}`;
  return `${r.method} ${summarize(r.path, 200).slice(1, -1)} as ${r.credential} [${headers.join('; ')}] ${body}`;
}

export function describeResponse(res: RawResponse): string {
  return `${res.status} (${res.bytes} bytes, ${res.headers['content-type'] ?? 'no content-type'}): ${summarize(res.body.toString('utf8'), 300)}`;
}

/** Builds the request and gives it a toString fast-check uses in its report instead of megabytes of body. */
export function makeRequest(parts: {
  method: string;
  path: string;
  headers: Record<string, string | undefined>;
  credential: string;
  text?: JsonText;
  transport?: Transport;
  seed?: number;
}): FuzzRequest {
  const headers = Object.fromEntries(Object.entries(parts.headers).filter((e): e is [string, string] => e[1] !== undefined));
  let request: FuzzRequest = { method: parts.method, path: parts.path, headers, credential: parts.credential };
  if (parts.text !== undefined) {
    const encoded = encodeBody(parts.text, parts.transport ?? 'plain', parts.seed ?? 0);
    request = {
      ...request,
      headers: { ...headers, ...encoded.headers },
      body: encoded.body,
      chunked: encoded.chunked,
      text: parts.text,
      transport: parts.transport,
    };
  }
  Object.defineProperty(request, fc.toStringMethod, { value: () => describeRequest(request), enumerable: false });
  return request;
}
