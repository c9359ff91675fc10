import { SecretBox } from '../../application/ports/secret-box.port';
import { RecordLocation } from '../../domain/resource/resource-record';
import { secretFieldsAt } from '../../domain/resource/secret-fields';

type Data = Record<string, unknown>;
/** Which stored values a reseal touches: those written before encryption, or also those under a previous key. */
export type ResealScope = 'plaintext' | 'all';

/**
 * Encrypts and decrypts the secret values of a record's data (secretFieldsAt),
 * each bound to its owner, resource, field and name. Everything else in the
 * data is left as it is.
 */
export class RecordSecrets {
  constructor(private readonly box: SecretBox) {}

  seal(ownerId: string, at: RecordLocation, data: Data): Data {
    return this.map(ownerId, at, data, (value, context) => this.box.encrypt(value, context));
  }

  /** Values written before encryption existed are returned as they are. */
  open(ownerId: string, at: RecordLocation, data: Data): Data {
    return this.map(ownerId, at, data, (value, context) => (this.box.isEncrypted(value) ? this.box.decrypt(value, context) : value));
  }

  /** The data with stale values encrypted under the current key; the same object when nothing needed it. */
  reseal(ownerId: string, at: RecordLocation, data: Data, scope: ResealScope): Data {
    let changed = false;
    const next = this.map(ownerId, at, data, (value, context) => {
      if (this.box.isEncrypted(value) && (scope === 'plaintext' || this.box.isCurrent(value))) return value;
      changed = true;
      return this.box.encrypt(this.box.isEncrypted(value) ? this.box.decrypt(value, context) : value, context);
    });
    return changed ? next : data;
  }

  private map(ownerId: string, at: RecordLocation, data: Data, change: (value: string, context: string) => string): Data {
    let result = data;
    for (const field of secretFieldsAt(at)) {
      const values = data[field];
      if (typeof values !== 'object' || values === null || Array.isArray(values)) continue;
      const changed = Object.entries(values).map(([name, value]) =>
        [name, typeof value === 'string' ? change(value, JSON.stringify([ownerId, at.resource, field, name])) : value]);
      result = { ...result, [field]: Object.fromEntries(changed) };
    }
    return result;
  }
}
