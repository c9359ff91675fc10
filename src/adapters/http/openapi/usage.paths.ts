import { UsageReportDto } from '../dto/usage.dto';
import { noStore, operation, queryParameter } from './operation';
import { schemaRef } from './dto-schemas';
import { Schema, timestamp, uuid } from './schema-parts';

export const usagePaths: Record<string, Schema> = {
  '/api/v1/usage': {
    get: operation({
      tag: 'Usage',
      operationId: 'getUsage',
      summary: 'Tool calls counted per bucket, with latency p50/p95, optionally grouped',
      description:
        'Counts of tools/call by outcome (`called`, `denied`, `rate_limited`, `quota_exhausted`, `upstream_error`), ' +
        "from each replica's batched counts. A non-admin reads their own keys only: another user's key is a 404, " +
        '`user_id` naming someone else or `group_by=user` a 403. The range may span at most 1440 buckets (400). ' +
        'An unknown or repeated parameter is 400.',
      parameters: [
        queryParameter('key_id', "One key's calls.", uuid),
        queryParameter('tool', 'One tool, as audited (`github__create_issue`).', { type: 'string' }),
        queryParameter('from', 'Inclusive, ISO-8601 with a time zone; default `to` minus 24 hours.', timestamp),
        queryParameter('to', 'Exclusive, ISO-8601 with a time zone; default now.', timestamp),
        queryParameter('bucket', 'Bucket size, UTC-aligned; default hour.', { enum: ['minute', 'hour', 'day'] }),
        queryParameter('group_by', 'One series per value; `user` is admin-only and covers every user.', {
          enum: ['tool', 'outcome', 'key', 'user'],
        }),
        queryParameter('user_id', "Another user's keys: admins only (403).", uuid),
      ],
      ok: { 200: json200() },
      errors: [400, 401, 403, 404, 503],
    }),
  },
};

function json200(): Schema {
  return {
    description: 'The series and the total.',
    headers: noStore,
    content: { 'application/json': { schema: schemaRef(UsageReportDto) } },
  };
}
