import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { MAX_LISTED_RECORDS } from '../../../ports/resource-store.port';
import { ToolValue } from '../tool-outcome';
import { DataMask, showAll } from './resource-policy';

/** One record, its data as `mask` lets the caller see it. */
export function one(record: ResourceRecord, mask: DataMask = showAll, as: 'record' | 'execution' = 'record'): ToolValue {
  return { kind: 'record', as, record: masked(record, mask) };
}

/**
 * A listing of what the store found: it asks for one record more than a
 * listing shows, so that a cut at MAX_LISTED_RECORDS is reported too.
 */
export function listed(found: readonly ResourceRecord[], mask: DataMask = showAll): ToolValue {
  return {
    kind: 'records',
    records: found.slice(0, MAX_LISTED_RECORDS).map((record) => masked(record, mask)),
    truncated: found.length > MAX_LISTED_RECORDS,
  };
}

function masked(record: ResourceRecord, mask: DataMask): ResourceRecord {
  return mask === showAll ? record : { ...record, data: mask(record) };
}
