import { QueryFailedError } from 'typeorm';
import { databaseCall } from '../../../../src/adapters/persistence/database-unavailable';
import { conflictOnDuplicate } from '../../../../src/adapters/persistence/unique-violation';
import { ConflictError, DatabaseUnavailableError } from '../../../../src/domain/errors';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const queryFailed = (code: string) => new QueryFailedError('SELECT 1', [], Object.assign(new Error('driver'), { code }));

describe('databaseCall', () => {
  it('turns an unreachable server into DatabaseUnavailableError, keeping the driver error as its cause', async () => {
    const driverError = refused();
    const error = await databaseCall(Promise.reject(driverError)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(error).toMatchObject({
      code: 'DATABASE.UNAVAILABLE',
      message: 'The database is not reachable; retry shortly',
      cause: driverError,
    });
  });

  it('recognises a server that went away mid-query (SQLSTATE 57P01 inside a QueryFailedError)', async () => {
    await expect(databaseCall(Promise.reject(queryFailed('57P01')))).rejects.toBeInstanceOf(DatabaseUnavailableError);
  });

  it('leaves every other failure as it is, and a result alone', async () => {
    const syntax = queryFailed('42601');
    await expect(databaseCall(Promise.reject(syntax))).rejects.toBe(syntax);
    await expect(databaseCall(Promise.resolve(7))).resolves.toBe(7);
  });
});

describe('conflictOnDuplicate', () => {
  it('turns a unique violation into ConflictError and an outage into DatabaseUnavailableError', async () => {
    await expect(conflictOnDuplicate(() => Promise.reject(queryFailed('23505')), 'taken')).rejects.toEqual(new ConflictError('taken'));
    await expect(conflictOnDuplicate(() => Promise.reject(refused()), 'taken')).rejects.toBeInstanceOf(DatabaseUnavailableError);
  });
});
