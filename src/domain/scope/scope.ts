import { echoInput, ValidationError } from '../errors';
import { isResource, Permission, Resource } from './scope-catalog';

const FORM = /^([a-z][a-z0-9_]*):(read|write)$/;

/** One `resource:permission` scope from the catalog. Immutable. */
export class Scope {
  private constructor(
    readonly resource: Resource,
    readonly permission: Permission,
  ) {}

  /** Throws ValidationError naming the value when it is malformed or not in the catalog. */
  static parse(value: unknown, field = 'scopes'): Scope {
    const scope = Scope.tryParse(value);
    if (!scope) {
      throw ValidationError.single(field, Scope.problemWith(value));
    }
    return scope;
  }

  static tryParse(value: unknown): Scope | null {
    if (typeof value !== 'string') return null;
    const match = FORM.exec(value);
    if (!match || !isResource(match[1])) return null;
    return new Scope(match[1], match[2] as Permission);
  }

  static of(resource: Resource, permission: Permission): Scope {
    return new Scope(resource, permission);
  }

  /** Why a value is not a catalog scope, for error messages. */
  static problemWith(value: unknown): string {
    if (typeof value !== 'string') return `scope must be a string, got ${echoInput(value)}`;
    if (!FORM.test(value)) return `${echoInput(value)} is not of the form resource:read or resource:write`;
    return `${echoInput(value)} is not a known scope`;
  }

  get value(): string {
    return `${this.resource}:${this.permission}`;
  }

  toString(): string {
    return this.value;
  }
}
