import { StandardSchemaV1 } from '@modelcontextprotocol/server';

/**
 * Takes any params object as it comes: the use-cases parse the fields and
 * answer -32602, where the SDK's own schemas would answer a wrong type
 * -32603 and drop the fields they do not know (agent_scopes). Both eras'
 * servers register their handlers with it.
 */
export const ANY_PARAMS: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'keygate', validate: (value) => ({ value: (value ?? {}) as Record<string, unknown> }) },
};
