import { Response } from 'express';
import { DomainError } from '../../../domain/errors';
import { toProblem } from '../../edge/error-map';
import { RPC, RpcId } from '../json-rpc';
import { sendModernError } from '../era/modern-answer';

/**
 * A domain error the per-request server's factory threw (PostgreSQL away
 * while server/discover reads the endpoint's capabilities) answered as keygate
 * answers it anywhere: the error map's status and headers (503 with
 * Retry-After), as a 2026 JSON-RPC error that echoes the request's id,
 * instead of the SDK's 500 for a factory that failed. False for any other
 * failure, which keeps the SDK's answer.
 */
export function sendFactoryFailure(res: Response, error: unknown, id: RpcId): boolean {
  if (!(error instanceof DomainError)) return false;
  const { problem, headers } = toProblem(error);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  sendModernError(res, { httpStatus: problem.status, id, code: RPC.SERVER_ERROR, message: `${problem.title}: ${problem.detail}` });
  return true;
}
