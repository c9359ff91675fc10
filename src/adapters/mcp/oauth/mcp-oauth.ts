import { Request, RequestHandler, Response } from 'express';
import { ValidateKey } from '../../../application/use-cases/validate-key/validate-key.use-case';
import { InvalidAccessTokenError, InvalidApiKeyError } from '../../../domain/errors';
import { AccessTokenRefusedError } from '../../auth/access-token-refused.error';
import { McpAccessTokenVerifier } from '../../auth/mcp-access-token-verifier';
import { toProblem } from '../../http/error-map';
import { bearerToken } from '../../http/middleware/access-token-auth';
import { apiKeyAuth } from '../../http/middleware/api-key-auth';
import { reportKeyValidation } from '../../http/middleware/key-validation-events';
import { logOf } from '../../http/middleware/request-logging';
import { sendProblem } from '../../http/problem';
import { resourceMetadataUrl } from './protected-resource';

/**
 * /mcp as an OAuth protected resource (MCP 2025-11-25 authorization): the
 * credentials check that takes a user's access token besides a key, and the
 * `resource_metadata` every challenge of /mcp carries so a client can find
 * the authorization servers. Without MCP_RESOURCE_URL there is none of this
 * and /mcp checks keys exactly as before.
 */
export class McpOAuth {
  readonly resourceMetadata: string;
  private readonly keys: RequestHandler;

  constructor(validateKey: ValidateKey, private readonly tokens: McpAccessTokenVerifier, resourceUrl: string) {
    this.resourceMetadata = resourceMetadataUrl(resourceUrl);
    this.keys = apiKeyAuth(validateKey);
  }

  /** A WWW-Authenticate value with the metadata URL added (RFC 9728 section 5.1). */
  challenge(value: string): string {
    return `${value}, resource_metadata="${this.resourceMetadata}"`;
  }

  /**
   * In apiKeyAuth's place. A key never holds a dot and a JWT holds two, so
   * one `includes` sends a Bearer value to the token check; everything else
   * (keys in either header, no credentials) takes the key path unchanged.
   * A refusal of either is the same 401 problem as before plus the metadata URL.
   */
  readonly authenticate: RequestHandler = async (req, res, next) => {
    const authorization = req.headers.authorization;
    let passed = false;
    try {
      if (authorization !== undefined && authorization.includes('.')) passed = await this.token(req, res, authorization);
      else await this.keys(req, res, () => void (passed = true));
    } catch (error) {
      if (!(error instanceof InvalidApiKeyError || error instanceof InvalidAccessTokenError)) throw error;
      return this.refuse(res, error);
    }
    if (passed) next();
  };

  private async token(req: Request, res: Response, authorization: string): Promise<boolean> {
    const token = bearerToken(authorization);
    // A token and a key header at once is ambiguous, as two different keys are.
    if (token === null || req.headers['x-api-key'] !== undefined) {
      reportKeyValidation(res, 'invalid');
      throw new InvalidAccessTokenError('Send one credential: Authorization: Bearer <access token>, or an API key');
    }
    try {
      res.locals.principal = await this.tokens.verify(token);
    } catch (error) {
      if (error instanceof AccessTokenRefusedError) logOf(req)[error.logLevel]({ reason: error.message, detail: error.detail }, 'access token refused');
      // Refused tokens count toward the client address's failure limit, as refused keys do.
      reportKeyValidation(res, error instanceof InvalidAccessTokenError ? 'invalid' : 'error');
      throw error;
    }
    reportKeyValidation(res, 'valid');
    return true;
  }

  private refuse(res: Response, error: InvalidApiKeyError | InvalidAccessTokenError): void {
    const { problem, headers } = toProblem(error);
    sendProblem(res, problem, { ...headers, 'WWW-Authenticate': this.challenge(headers['WWW-Authenticate']) });
  }
}
