import { ValidationError } from '../../../../domain/errors';
import { isUuid } from '../../../../domain/uuid';
import { RecordFilter } from '../../../ports/resource-store.port';
import { isObject } from './tool-command';

/** Readers of the `data` argument that fail with a message naming the field. */
export function requireId(id: string | null, action: string): string {
  if (id === null) throw ValidationError.single('id', `is required for ${action}`);
  return id;
}

export function forbidId(id: string | null, action: string): void {
  if (id !== null) throw ValidationError.single('id', `must be left out: ${action} makes a new record`);
}

export function uuidField(data: Record<string, unknown>, field: string, why: string): string {
  const value = data[field];
  if (!isUuid(value)) throw ValidationError.single(`data.${field}`, `is required ${why} and must be a record id (a UUID)`);
  return value;
}

/** search takes data.text; query takes data.where (JSON containment). */
export function filterFor(action: string, data: Record<string, unknown>): RecordFilter | undefined {
  if (action === 'search') {
    if (typeof data.text !== 'string' || data.text.trim() === '') {
      throw ValidationError.single('data.text', 'is required for search: the text to look for');
    }
    return { text: data.text };
  }
  if (action === 'query') {
    if (!isObject(data.where))
      throw ValidationError.single('data.where', "is required for query: an object the records' data must contain");
    return { where: data.where };
  }
  return undefined;
}

export function without(data: Record<string, unknown>, ...fields: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([key]) => !fields.includes(key)));
}
