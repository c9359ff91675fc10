import { clipInput, echoInput, FieldError, MAX_FIELD_ERRORS, ValidationError } from '../../../../domain/errors';
import { Resource } from '../../../../domain/scope';
import { Action, ACTIONS, SUBRESOURCES } from '../../../../domain/tool';
import { isUuid } from '../../../../domain/uuid';

/** A built-in tool call whose arguments matched the tool's input schema. */
export interface ToolCommand {
  resource: Resource;
  action: Action;
  subresource: string | null;
  id: string | null;
  data: Record<string, unknown>;
}

/**
 * Checks arguments against the schema BUILT_IN_TOOLS publishes; errors say
 * which field and why. Text PostgreSQL cannot store never gets here: the
 * MCP edge refuses it in every message's params (findBodyProblem).
 */
export function parseToolCommand(resource: Resource, args: Record<string, unknown> | undefined): ToolCommand {
  const input = args ?? {};
  const errors: FieldError[] = [];
  const subresources = SUBRESOURCES[resource];
  const allowed = subresources.length > 0 ? ['action', 'subresource', 'id', 'data'] : ['action', 'id', 'data'];
  for (const key of Object.keys(input)) {
    // A 1 MiB call of unknown names once got a 9.6 MB answer: report a few, not all.
    if (errors.length === MAX_FIELD_ERRORS) break;
    if (!allowed.includes(key)) {
      errors.push({ field: clipInput(key), message: `is not an argument of the ${resource} tool (allowed: ${allowed.join(', ')})` });
    }
  }
  const { action, subresource, id, data } = input;
  if (action === undefined) errors.push({ field: 'action', message: `is required: one of ${ACTIONS.join(', ')}` });
  else if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action)) {
    errors.push({ field: 'action', message: `${echoInput(action)} is not one of ${ACTIONS.join(', ')}` });
  }
  if (subresource !== undefined && (typeof subresource !== 'string' || !subresources.includes(subresource))) {
    errors.push({
      field: 'subresource',
      message: `${echoInput(subresource)} is not a subresource of ${resource} (${subresources.join(', ') || 'it has none'})`,
    });
  }
  if (id !== undefined && !isUuid(id)) errors.push({ field: 'id', message: 'must be a record id (a UUID)' });
  if (data !== undefined && !isObject(data)) errors.push({ field: 'data', message: 'must be an object' });
  if (errors.length > 0) throw new ValidationError(errors);
  return {
    resource,
    action: action as Action,
    subresource: (subresource as string | undefined) ?? null,
    id: (id as string | undefined) ?? null,
    data: (data as Record<string, unknown> | undefined) ?? {},
  };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
