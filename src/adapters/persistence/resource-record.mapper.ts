import { ResourceRecord } from '../../domain/resource/resource-record';
import { Resource } from '../../domain/scope';

/** A `resource_records` row as node-postgres returns it. */
export interface ResourceRecordRow {
  id: string;
  user_id: string;
  resource: string;
  parent_id: string | null;
  subresource: string | null;
  data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export class ResourceRecordMapper {
  static toDomain(row: ResourceRecordRow): ResourceRecord {
    return {
      id: row.id,
      ownerId: row.user_id,
      // Written only through the store, which takes a Resource.
      resource: row.resource as Resource,
      parentId: row.parent_id,
      subresource: row.subresource,
      data: row.data,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}
