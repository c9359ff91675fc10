import { jsonBytes } from '../../application/use-cases/gateway/built-in/data-limits';
import { ToolValue } from '../../application/use-cases/gateway/tool-outcome';
import { ResourceRecord } from '../../domain/resource/resource-record';
import { ToolPin } from '../../domain/tool';
import { withToolPins } from '../edge/tool-pins-view';

/**
 * The most bytes of records' JSON one tool result holds. A result carries its
 * value twice, as structuredContent and as JSON text, and the text copy
 * escapes at most every byte into two (`"` and `\`): 3 × 18 KiB plus the
 * JSON-RPC envelope stays under 64 KiB whatever the data. A batch's answers
 * share one body, so each result of one gets a share of this.
 */
export const MAX_RESULT_RECORD_BYTES = 18 * 1024;

/** A built-in tool's value as its result shows it, within `budget` bytes of records' JSON. */
export function toolValueView(value: ToolValue, budget: number): Record<string, unknown> {
  switch (value.kind) {
    case 'record':
      return single(value.as, value.record, budget, value.pins);
    case 'records':
      return listing(value.records, value.truncated, budget);
    case 'deleted':
      return { deleted: value.id };
    case 'unassigned':
      return { unassigned: value.id };
  }
}

/** A record as tools return it: snake_case, an allow-list of fields. */
export function recordView(record: ResourceRecord): Record<string, unknown> {
  return {
    id: record.id,
    resource: record.resource,
    ...(record.parentId !== null && { parent_id: record.parentId, subresource: record.subresource }),
    data: record.data,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}

/**
 * The records oldest first, as many as fit in `budget` bytes of JSON, with
 * `truncated: true` when any were left out, here or by the use-case.
 */
function listing(found: readonly ResourceRecord[], truncated: boolean, budget: number): Record<string, unknown> {
  const records: Record<string, unknown>[] = [];
  let bytes = 2;
  for (const record of found) {
    const shown = recordView(record);
    bytes += jsonBytes(shown) + (records.length > 0 ? 1 : 0);
    if (bytes > budget) return { records, truncated: true };
    records.push(shown);
  }
  return truncated ? { records, truncated: true } : { records };
}

/**
 * One record under `key`, with its tool pins when it has them (which give
 * way to the record's own data). Stored data is at most
 * MAX_RECORD_DATA_BYTES, which fits a lone call's budget; a record over a
 * smaller, shared budget is shown without its data and the result says
 * `truncated: true`.
 */
function single(key: string, record: ResourceRecord, budget: number, pins?: readonly ToolPin[]): Record<string, unknown> {
  const shown = recordView(record);
  const fitted = pins === undefined ? (jsonBytes(shown) <= budget ? shown : null) : withToolPins(shown, pins, budget);
  if (fitted !== null) return { [key]: fitted };
  const { data: _omitted, ...rest } = shown;
  return { [key]: rest, truncated: true };
}
