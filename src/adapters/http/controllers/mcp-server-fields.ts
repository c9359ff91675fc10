import { ValidationError } from '../../../domain/errors';

const APPROVALS = 'data.approve_tools';

/**
 * The use-cases name what they were given: `data.<field>` inside a server's
 * data, `data` for all of it, as the mcp_servers tool's callers send it. A
 * REST body is that data itself, so its errors name `<field>` and `body`;
 * on the approve-tools route the approvals are `approvals` (`tools`).
 */
export async function bodyFieldsOf<T>(work: () => Promise<T>, approvals = 'approve_tools'): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(error.errors.map(({ field, message }) => ({ field: bodyField(field, approvals), message })));
  }
}

function bodyField(field: string, approvals: string): string {
  if (field === 'data') return 'body';
  if (field.startsWith(APPROVALS)) return approvals + field.slice(APPROVALS.length);
  return field.startsWith('data.') ? field.slice('data.'.length) : field;
}
