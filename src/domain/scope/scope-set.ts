import { FieldError, ValidationError } from '../errors';
import { Scope } from './scope';

/**
 * A caller's scopes and the four rules of spec section 4.5: an empty set grants
 * everything, a held scope grants itself, a resource's `:write` grants its
 * `:read`, nothing else grants anything.
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
   * Validates an untrusted scope array in one place: every value must be a
   * catalog scope, and none may repeat. Errors name the offending values.
   */
  static parse(values: unknown, field = 'scopes'): ScopeSet {
    if (values === undefined || values === null) return ScopeSet.full();
    if (!Array.isArray(values)) throw ValidationError.single(field, 'must be an array of scope strings');
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

  allows(scope: Scope | string): boolean {
    if (this.full) return true;
    return this.granted.has(typeof scope === 'string' ? scope : scope.value);
  }

  /** The scopes as held, in the spec's array form (empty for full access). */
  toArray(): string[] {
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
