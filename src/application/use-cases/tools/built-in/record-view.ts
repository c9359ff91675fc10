import { ResourceRecord } from '../../../../domain/resource/resource-record';

/** Changes what a caller is shown of a record's data, e.g. to hide secrets. */
export type DataMask = (record: ResourceRecord) => Record<string, unknown>;

export const showAll: DataMask = (record) => record.data;

/** A record as tools return it: snake_case, an allow-list of fields. */
export function recordView(record: ResourceRecord, mask: DataMask = showAll): Record<string, unknown> {
  return {
    id: record.id,
    resource: record.resource,
    ...(record.parentId !== null && { parent_id: record.parentId, subresource: record.subresource }),
    data: mask(record),
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}
