import { RequestHandler } from 'express';
import { echoInput } from '../../domain/errors';
import { RPC, sendRpcError } from './json-rpc';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Declared here rather than taken from the config module: infrastructure passes its values in. */
export interface RequestGuardOptions {
  /** Origins accepted besides loopback ones (MCP_ALLOWED_ORIGINS). */
  allowedOrigins: readonly string[];
  /** Host header values accepted; empty: any host (MCP_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
}

/**
 * DNS-rebinding protection for /mcp. A browser page on a rebound name sends its
 * own Origin, so a present Origin must be a loopback one or listed in
 * MCP_ALLOWED_ORIGINS; an Origin equal to the Host proves nothing and is not
 * trusted. When MCP_ALLOWED_HOSTS is set, the Host header must be one of them.
 */
export function requestGuard(config: RequestGuardOptions): RequestHandler {
  const origins = new Set(config.allowedOrigins.map(originOf).filter((o): o is string => o !== null));
  return (req, res, next) => {
    const host = req.headers.host;
    if (config.allowedHosts.length > 0 && !(host !== undefined && hostAllowed(host, config.allowedHosts))) {
      return sendRpcError(res, 403, null, RPC.SERVER_ERROR, `Forbidden: Host ${echoInput(host ?? '')} is not allowed`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin, origins)) {
      return sendRpcError(res, 403, null, RPC.SERVER_ERROR, `Forbidden: Origin ${echoInput(origin)} is not allowed`);
    }
    next();
  };
}

function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = hostnameOf(host);
  return allowed.some((entry) => entry.toLowerCase() === host.toLowerCase() || entry.toLowerCase() === name);
}

function originAllowed(origin: string, allowed: ReadonlySet<string>): boolean {
  const normalised = originOf(origin);
  if (normalised === null) return false;
  const url = new URL(normalised);
  return LOOPBACK.has(url.hostname) || allowed.has(normalised);
}

function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

function hostnameOf(host: string): string | null {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}
