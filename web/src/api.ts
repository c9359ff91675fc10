import type { components } from './api.generated';
import { currentSession, signOut } from './auth';

/** A REST error as the API's problem body says it, cut short for the screen. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The problem body's `errors`, for a form that shows each next to its field. */
    readonly fields: FieldError[] = [],
  ) {
    super(message);
  }
}

export interface FieldError {
  field: string;
  message: string;
}

type Schemas = components['schemas'];

/** The wire shapes, generated from the OpenAPI document (npm run openapi:types). */
export type RateLimit = Schemas['RateLimit'];
export type Quota = Schemas['ShownQuota'];
export type ApiKey = Schemas['ApiKey'];
/** A new key, or a rolled one's successor (with `replaces`). */
export type CreatedKey = Schemas['CreatedApiKey'] & Partial<Pick<Schemas['RolledApiKey'], 'replaces'>>;
export type ScopeInfo = Schemas['ScopeCatalogEntry'];
export type Scope = Schemas['Scope'];
export type CreateKeyBody = Schemas['CreateApiKey'];
export type UpdateKeyBody = Schemas['UpdateApiKey'];
export type AuditPage = Schemas['AuditPage'];
export type AuditEvent = Schemas['AuditEvent'];
export type McpServer = Schemas['McpServer'];
export type McpConnection = Schemas['McpConnection'];
export type AgentRole = Schemas['AgentRole'];
export type ModeToolConfig = Schemas['ModeToolConfig'];
export type ToolRule = Schemas['ToolRule'];
export type KeyTool = Schemas['KeyTool'];
export type KeyTools = Schemas['KeyTools'];
export type ToolExplanation = Schemas['ToolExplanation'];
export type ExplainStep = Schemas['ExplainStep'];
export type Approval = Schemas['Approval'];
export type UsageReport = Schemas['UsageReport'];
export type UsageSeries = Schemas['UsageSeries'];
export type UsageStats = Schemas['UsageStats'];

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
    const problem = (await res.json().catch(() => ({}))) as {
      detail?: string;
      title?: string;
      errors?: { field?: string; message?: string }[];
    };
    const summary = problem.detail ?? problem.title ?? `HTTP ${res.status}`;
    // A single field's error is usually the detail already: said once.
    const fields = (problem.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.field ?? ''}: ${e.message ?? ''}`)
      .filter((f) => !summary.includes(f))
      .join('; ');
    const all = (problem.errors ?? []).map((e) => ({ field: e.field ?? '', message: e.message ?? '' }));
    throw new ApiError(res.status, [summary, fields].filter(Boolean).join(' — ').slice(0, 300), all);
  }
  const data = (res.status === 204 ? null : await res.json()) as T;
  return { data, headers: res.headers };
}
