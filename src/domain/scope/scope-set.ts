import { FieldError, ValidationError } from '../errors';
import { Scope } from './scope';
import { SCOPE_CATALOG } from './scope-catalog';

/** Every array holds at most the whole catalog: anything longer repeats a scope or names an unknown one. */
export const MAX_SCOPES = SCOPE_CATALOG.length;

/**
 * A caller's scopes and the four rules of spec section 4.5: an empty set grants
 * everything, a held scope grants itself, a resource's `:write` grants its
 * `:read`, nothing else grants anything.
 *
 * Besides "full" (the spec's empty array) and "these scopes", narrowing can
 * yield a set that grants nothing; that one has no array form in the spec, so
 * it can be asked but not serialised.
 */
export class ScopeSet {
  private readonly granted: ReadonlySet<string>;

  private constructor(
    private readonly scopes: readonly Scope[],
    private readonly full: boolean,
  ) {
    this.granted = new Set(scopes.flatMap(impliedBy));
  }

  /** No restriction at all (the empty scope array of the spec). */
  static full(): ScopeSet {
    return new ScopeSet([], true);
  }

  /** An empty array means full access, as the spec says. */
  static of(scopes: readonly Scope[]): ScopeSet {
    return new ScopeSet(dedupe(scopes), scopes.length === 0);
  }

  /**
   * Exactly the scopes held, none meaning none: an OAuth access token's
   * grant, where an empty grant must never read as the spec's "full access".
   */
  static exactly(scopes: readonly Scope[]): ScopeSet {
    return new ScopeSet(dedupe(scopes), false);
  }

  /**
   * Validates an untrusted scope array in one place: at most MAX_SCOPES
   * values, checked before any of them (an array of 520,000 once made a 27 MB
   * error), each a catalog scope, none repeated. Errors name the offending values.
   */
  static parse(values: unknown, field = 'scopes'): ScopeSet {
    if (values === undefined || values === null) return ScopeSet.full();
    if (!Array.isArray(values)) throw ValidationError.single(field, 'must be an array of scope strings');
    if (values.length > MAX_SCOPES) {
      throw ValidationError.single(field, `must hold at most ${MAX_SCOPES} scopes, the whole catalog; it holds ${values.length}`);
    }
    const errors: FieldError[] = [];
    const seen = new Set<string>();
    const scopes: Scope[] = [];
    values.forEach((value, index) => {
      const scope = Scope.tryParse(value);
      if (!scope) {
        errors.push({ field: `${field}[${index}]`, message: Scope.problemWith(value) });
      } else if (seen.has(scope.value)) {
        errors.push({ field: `${field}[${index}]`, message: `"${scope.value}" is listed more than once` });
      } else {
        seen.add(scope.value);
        scopes.push(scope);
      }
    });
    if (errors.length > 0) throw new ValidationError(errors);
    return ScopeSet.of(scopes);
  }

  /** Rebuilds a set from stored strings that were validated when written. */
  static fromTrusted(values: readonly string[]): ScopeSet {
    return ScopeSet.of(values.map((v) => Scope.parse(v)));
  }

  get isFullAccess(): boolean {
    return this.full;
  }

  /** True only for a narrowing whose two sides share no scope. */
  get grantsNothing(): boolean {
    return !this.full && this.scopes.length === 0;
  }

  /**
   * A mode widening a role: allows S iff either side does. Full access on
   * either side stays full access; merging never narrows.
   */
  merge(other: ScopeSet): ScopeSet {
    if (this.full || other.full) return ScopeSet.full();
    return new ScopeSet(dedupe([...this.scopes, ...other.scopes]), false);
  }

  /**
   * An agent's scopes limiting a key: allows S iff both sides do, each side's
   * `:write` counting as its `:read` first. Narrowing by full access changes nothing.
   */
  narrow(other: ScopeSet): ScopeSet {
    if (other.full) return this;
    if (this.full) return other;
    // Every scope either side grants is a held scope of one side or implied by one,
    // so testing the held scopes of both sides finds the whole intersection.
    const shared = dedupe([...this.scopes, ...other.scopes]).filter((s) => this.allows(s) && other.allows(s));
    return new ScopeSet(minimal(shared), false);
  }

  allows(scope: Scope | string): boolean {
    if (this.full) return true;
    return this.granted.has(typeof scope === 'string' ? scope : scope.value);
  }

  /** The scopes as held, in the spec's array form (empty for full access). */
  toArray(): string[] {
    if (this.grantsNothing) throw new Error('A scope set that grants nothing has no array form');
    return this.scopes.map((s) => s.value);
  }
}

function impliedBy(scope: Scope): string[] {
  return scope.permission === 'write' ? [scope.value, `${scope.resource}:read`] : [scope.value];
}

function dedupe(scopes: readonly Scope[]): Scope[] {
  const byValue = new Map(scopes.map((s) => [s.value, s]));
  return [...byValue.values()];
}

/** Drops a `:read` whose resource's `:write` is also present: the write implies it. */
function minimal(scopes: readonly Scope[]): Scope[] {
  const writes = new Set(scopes.filter((s) => s.permission === 'write').map((s) => s.resource));
  return scopes.filter((s) => s.permission === 'write' || !writes.has(s.resource));
}
