import { allowedFields } from '../../../../../src/adapters/http/dto/body-fields';
import { CreateApiKeyDto } from '../../../../../src/adapters/http/dto/create-api-key.dto';
import { RollApiKeyDto, UpdateApiKeyDto } from '../../../../../src/adapters/http/dto/update-api-key.dto';
import { ValidationError } from '../../../../../src/domain/errors';

function errorsOf(run: () => unknown): { field: string; message: string }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors.map(({ field, message }) => ({ field, message }));
    throw error;
  }
  throw new Error('no ValidationError');
}

describe("the API key DTOs check the wire shape at the edge, with the use-cases' wording", () => {
  it('names each field of a create body whose type is wrong, nested fields by path', () => {
    const body = {
      name: 5,
      user_id: 'me',
      expires_at: 'tomorrow',
      scopes: 'chat:read',
      rate_limit: [1],
      quota: { remaining: -1, refill: { amount: 0, interval: 'week' } },
    };
    expect(errorsOf(() => allowedFields(CreateApiKeyDto, body))).toEqual([
      { field: 'name', message: 'is required and must be a string' },
      { field: 'user_id', message: 'must be a UUID' },
      { field: 'expires_at', message: 'must be an ISO-8601 timestamp with a time zone, or null' },
      { field: 'scopes', message: 'must be an array of scope strings' },
      { field: 'rate_limit', message: 'must be an object or null, not an array' },
      { field: 'quota.remaining', message: 'must be an integer from 0 to 1000000000' },
      { field: 'quota.refill.amount', message: 'must be an integer from 1 to 1000000000' },
      { field: 'quota.refill.interval', message: 'must be one of hour, day, month' },
    ]);
  });

  it('refuses unknown fields inside rate_limit and quota, and a "__proto__" there, as unknown fields', () => {
    expect(errorsOf(() => allowedFields(CreateApiKeyDto, { name: 'k', rate_limit: { limit: 1, window_seconds: 1, burst: 2 } }))).toEqual([
      { field: 'rate_limit.burst', message: 'is not a known field' },
    ]);
    expect(errorsOf(() => allowedFields(CreateApiKeyDto, JSON.parse('{"name":"k","quota":{"__proto__":null}}')))).toEqual([
      { field: 'quota.__proto__', message: 'is not a known field' },
    ]);
  });

  it('bounds names and limits as the schema says', () => {
    expect(
      errorsOf(() => allowedFields(CreateApiKeyDto, { name: 'x'.repeat(256), rate_limit: { limit: 1.5, window_seconds: 86_401 } })),
    ).toEqual([
      { field: 'name', message: 'must be at most 255 characters' },
      { field: 'rate_limit.limit', message: 'must be an integer from 1 to 1000000' },
      { field: 'rate_limit.window_seconds', message: 'must be an integer from 1 to 86400' },
    ]);
  });

  it('lets null through where it clears a setting, and turns the body into the use-case input', () => {
    const body = allowedFields(CreateApiKeyDto, {
      name: 'k',
      user_id: null,
      expires_at: null,
      scopes: null,
      rate_limit: null,
      quota: null,
    });
    expect(body.toInput()).toEqual({ name: 'k', userId: null, expiresAt: null, scopes: undefined, rateLimit: null, quota: null });
    expect(allowedFields(UpdateApiKeyDto, { expires_at: null, quota: null }).toInput()).toMatchObject({ expiresAt: null, quota: null });
  });

  it('refuses null scopes and name in a PATCH, and a grace that is not a whole number of seconds in range', () => {
    expect(errorsOf(() => allowedFields(UpdateApiKeyDto, { name: null, scopes: null }))).toEqual([
      { field: 'name', message: 'is required and must be a string' },
      { field: 'scopes', message: 'must be an array of scope strings ([] means full access)' },
    ]);
    for (const grace of ['60', -1, 1.5, 2_592_001]) {
      expect(errorsOf(() => allowedFields(RollApiKeyDto, { grace_seconds: grace }))).toEqual([
        { field: 'grace_seconds', message: 'must be an integer from 0 to 2592000' },
      ]);
    }
    expect(allowedFields(RollApiKeyDto, {}).toInput()).toEqual({ graceSeconds: undefined });
  });
});
