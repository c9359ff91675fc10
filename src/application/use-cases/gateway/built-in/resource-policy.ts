import { ResourceRecord } from '../../../../domain/resource/resource-record';

/** Changes what a caller is shown of a record's data, e.g. to hide secrets. */
export type DataMask = (record: ResourceRecord) => Record<string, unknown>;

export const showAll: DataMask = (record) => record.data;

/**
 * What a resource group adds to the generic record rules: the shape its data
 * must have (throw ValidationError otherwise) and what callers may see of it.
 */
export interface ResourcePolicy {
  /** The data to store for a new top-level record, or for one after an update merged `data` in. */
  check(data: Record<string, unknown>): Record<string, unknown>;
  /** Applied to every top-level record a tool returns, before it leaves the use-case. */
  mask: DataMask;
  /** Merges an update into stored data; plain replacement of the named fields by default. */
  merge(stored: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown>;
  /** Most top-level records one owner may hold, and what a create past it is told. */
  limit?: { max: number; refusal: string };
}

export const ANY_DATA: ResourcePolicy = {
  check: (data) => data,
  mask: showAll,
  merge: (stored, update) => ({ ...stored, ...update }),
};
