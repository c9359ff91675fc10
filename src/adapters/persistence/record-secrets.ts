import { SecretBox } from '../../application/ports/secret-box.port';
import { RecordLocation } from '../../domain/resource/resource-record';
import { isSecretName, secretFieldsAt } from '../../domain/resource/secret-fields';

type Data = Record<string, unknown>;
/**
 * Which stored values a reseal touches. `upgrade` (at start-up): those written
 * before encryption, and those bound the older way (to owner and name only),
 * which are bound to their record under the key they are under. `all` (on
 * rotation): also those under a previous key.
 */
export type ResealScope = 'upgrade' | 'all';
/** The record a secret belongs to: its owner and its id. */
export interface SecretOwner {
  ownerId: string;
  id: string;
}

/**
 * Encrypts and decrypts the secret values of a record's data (secretFieldsAt),
 * each bound to its owner, resource, record, field and name, so a value moved
 * to another record, even of the same owner, no longer opens. Everything else
 * in the data is left as it is.
 */
export class RecordSecrets {
  constructor(readonly box: SecretBox) {}

  seal(owner: SecretOwner, at: RecordLocation, data: Data): Data {
    return this.map(owner, at, data, (value, context) => this.box.encrypt(value, context.bound));
  }

  /** Values written before encryption existed are returned as they are; a value that does not open throws (SecretBoxError). */
  open(owner: SecretOwner, at: RecordLocation, data: Data): Data {
    return this.map(owner, at, data, (value, context) =>
      this.box.isEncrypted(value) ? this.box.decrypt(value, this.contextOf(value, context)) : value,
    );
  }

  /** The data with stale values encrypted again (ResealScope); the same object when nothing needed it. */
  reseal(owner: SecretOwner, at: RecordLocation, data: Data, scope: ResealScope): Data {
    let changed = false;
    const next = this.map(owner, at, data, (value, context) => {
      if (!this.box.isEncrypted(value)) {
        changed = true;
        return this.box.encrypt(value, context.bound);
      }
      if (this.box.isOwnerBound(value)) {
        changed = true;
        return scope === 'upgrade'
          ? this.box.rebind(value, context.older, context.bound)
          : this.box.encrypt(this.box.decrypt(value, context.older), context.bound);
      }
      if (scope === 'upgrade' || this.box.isCurrent(value)) return value;
      changed = true;
      return this.box.encrypt(this.box.decrypt(value, context.bound), context.bound);
    });
    return changed ? next : data;
  }

  private contextOf(value: string, context: Contexts): string {
    return this.box.isOwnerBound(value) ? context.older : context.bound;
  }

  private map(owner: SecretOwner, at: RecordLocation, data: Data, change: (value: string, context: Contexts) => string): Data {
    let result = data;
    for (const field of secretFieldsAt(at)) {
      const values = data[field];
      if (typeof values !== 'object' || values === null || Array.isArray(values)) continue;
      const changed = Object.entries(values as Data).map(([name, value]): [string, unknown] => [
        name,
        typeof value === 'string' && isSecretName(at, field, name)
          ? change(value, {
              bound: JSON.stringify([owner.ownerId, at.resource, owner.id, field, name]),
              older: JSON.stringify([owner.ownerId, at.resource, field, name]),
            })
          : value,
      ]);
      result = { ...result, [field]: Object.fromEntries(changed) };
    }
    return result;
  }
}

/** Where a value belongs: `bound` to its record (what is written), `older` as values were bound before (owner and name only). */
interface Contexts {
  bound: string;
  older: string;
}
