import { componentRef } from './wire-decorators';

/** A scope list: `[]` is full access; each scope is checked against the catalog by the use-case. */
export const SCOPE_LIST = { type: 'array', items: componentRef('Scope'), description: '`[]` means full access.' };

/** A required label (a key's, a role's or a mode's name) that is not a string. */
export const NAME_REQUIRED = 'is required and must be a string';

export const SHA256_HEX = /^[0-9a-f]{64}$/;
