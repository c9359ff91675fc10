import { Resource } from '../scope';

/**
 * One record of a resource group, owned by one user. A subresource item is a
 * record too: it names its parent and the subresource it belongs to.
 */
export interface ResourceRecord {
  id: string;
  ownerId: string;
  resource: Resource;
  parentId: string | null;
  subresource: string | null;
  data: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Set when secret values of the record did not decrypt (altered, moved from
   * another record, under a key this service lacks): they are left out of
   * `data`, and the record must not be used to reach anything.
   */
  unreadableSecrets?: true;
}

/** Where records live: a resource's top level, or one subresource of one parent. */
export interface RecordLocation {
  resource: Resource;
  parentId: string | null;
  subresource: string | null;
}

export function topLevel(resource: Resource): RecordLocation {
  return { resource, parentId: null, subresource: null };
}
