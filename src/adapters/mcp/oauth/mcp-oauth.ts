import { Request, RequestHandler, Response } from 'express';
import { ValidateKey } from '../../../application/use-cases/validate-key/validate-key.use-case';
import { InvalidAccessTokenError, InvalidApiKeyError } from '../../../domain/errors';
import { AccessTokenRefusedError } from '../../auth/access-token-refused.error';
import { McpAccessTokenVerifier } from '../../auth/mcp-access-token-verifier';
import { toProblem } from '../../edge/error-map';
import { bearerToken } from '../../edge/access-token-auth';
import { apiKeyAuth } from '../../edge/api-key-auth';
import { reportKeyValidation } from '../../edge/key-validation-events';
import { logOf } from '../../edge/request-logging';
import { sendProblem } from '../../edge/problem';
import { resourceMetadataUrl, serverResourceUrl } from './protected-resource';

/**
 * /mcp as an OAuth protected resource (MCP 2025-11-25 authorization): the
 * credentials check that takes a user's access token besides a key, and the
 * `resource_metadata` every challenge of /mcp carries so a client can find
 * the authorization servers. Without MCP_RESOURCE_URL there is none of this
 * and /mcp checks keys exactly as before. /mcp/servers/<name> is a resource of
 * its own (protected-resource.ts): its challenges name its own metadata.
 */
export class McpOAuth {
  private readonly resourceMetadata: string;
  private readonly keys: RequestHandler;

  constructor(
    validateKey: ValidateKey,
    private readonly tokens: McpAccessTokenVerifier,
    private readonly resourceUrl: string,
  ) {
    this.resourceMetadata = resourceMetadataUrl(resourceUrl);
    this.keys = apiKeyAuth(validateKey);
  }

  /**
   * A WWW-Authenticate value with the metadata URL added (RFC 9728 section
   * 5.1): /mcp's, or on /mcp/servers/<server> that endpoint's. A name no
   * server can have gets /mcp's (its request ends in a 404 anyway).
   */
  challenge(value: string, server?: string): string {
    const resource = serverResourceUrl(this.resourceUrl, server);
    return `${value}, resource_metadata="${resource === null ? this.resourceMetadata : resourceMetadataUrl(resource)}"`;
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
      return this.refuse(req, res, error);
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
      res.locals.principal = await this.tokens.verify(token, serverResourceUrl(this.resourceUrl, serverOf(req)));
    } catch (error) {
      if (error instanceof AccessTokenRefusedError)
        logOf(req)[error.logLevel]({ reason: error.message, detail: error.detail }, 'access token refused');
      // Refused tokens count toward the client address's failure limit, as refused keys do.
      reportKeyValidation(res, error instanceof InvalidAccessTokenError ? 'invalid' : 'error');
      throw error;
    }
    reportKeyValidation(res, 'valid');
    return true;
  }

  private refuse(req: Request, res: Response, error: InvalidApiKeyError | InvalidAccessTokenError): void {
    const { problem, headers } = toProblem(error);
    sendProblem(res, problem, { ...headers, 'WWW-Authenticate': this.challenge(headers['WWW-Authenticate'], serverOf(req)) });
  }
}

/** The `<name>` of /mcp/servers/<name>, unchecked; undefined on /mcp. */
function serverOf(req: Request): string | undefined {
  const name: unknown = req.params.name;
  return typeof name === 'string' ? name : undefined;
}
