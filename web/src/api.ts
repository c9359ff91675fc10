import { currentSession, signOut } from './auth';

/** A REST error as the API's problem body says it, cut short for the screen. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export interface RateLimit { limit: number; window_seconds: number }
export interface Quota { remaining: number; refill: { amount: number; interval: 'hour' | 'day' | 'month' } | null }

export interface ApiKey {
  id: string;
  name: string;
  key_prefix: string;
  scopes: string[];
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  rate_limit: RateLimit | null;
  quota: Quota | null;
  user_id?: string;
  revoked_at?: string | null;
  /** Set on a rolled key: its successor. It keeps working until `expires_at` (the grace period). */
  replaced_by?: string | null;
}

export interface CreatedKey extends Omit<ApiKey, 'last_used_at'> { raw_key: string; replaces?: string }

export interface ScopeInfo { scope: string; resource: string; permission: 'read' | 'write'; covers: string }

export interface AuditEvent {
  seq?: number;
  id?: string;
  action: string;
  occurred_at?: string;
  created_at?: string;
  key_id?: string | null;
  details?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface ToolPin { sha256: string; status: 'approved' | 'changed'; seen_sha256?: string }
export interface McpServer {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  tool_scopes: Record<string, string[]>;
  resource_scopes: Record<string, string[]>;
  prompt_scopes: Record<string, string[]>;
  tool_pins: Record<string, ToolPin>;
  created_at: string;
  updated_at: string;
}

export interface AgentRole { id: string; name: string; description: string | null; platform_scopes: string[]; is_system: boolean }
export interface ModeToolConfig { id: string; mode: string; additional_scopes: string[] }

export async function api<T>(method: string, path: string, body?: unknown): Promise<{ data: T; headers: Headers }> {
  const session = currentSession();
  if (!session) throw new ApiError(401, 'Signed out');
  const res = await fetch(`/api/v1${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${session.accessToken}`,
      Accept: 'application/json',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) {
    signOut();
    location.reload();
  }
  if (!res.ok) {
    const problem = (await res.json().catch(() => ({}))) as { detail?: string; title?: string; errors?: { field?: string; message?: string }[] };
    const summary = problem.detail ?? problem.title ?? `HTTP ${res.status}`;
    // A single field's error is usually the detail already: said once.
    const fields = (problem.errors ?? []).slice(0, 3).map((e) => `${e.field ?? ''}: ${e.message ?? ''}`).filter((f) => !summary.includes(f)).join('; ');
    throw new ApiError(res.status, [summary, fields].filter(Boolean).join(' — ').slice(0, 300));
  }
  const data = (res.status === 204 ? null : await res.json()) as T;
  return { data, headers: res.headers };
}
