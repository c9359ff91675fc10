import { Request, Response, Router } from 'express';
import { IntrospectKey } from '../../../application/use-cases/introspect-key/introspect-key.use-case';
import { unchecked } from '../../unchecked';
import { presentIntrospection } from '../dto/introspection.presenter';
import { actorOf } from '../../edge/access-token-auth';
import { formBody } from '../middleware/form-body';
import { problemType, sendProblem } from '../../edge/problem';

export const INTROSPECTION_PATH = '/oauth/introspect';

/**
 * Token introspection (RFC 7662) for keygate's API keys, for admins (resource
 * servers hold an admin JWT); the user's JWT is checked before this router.
 * The token is read from the form only, never from the query string, and is
 * neither logged nor echoed in an error.
 */
export class IntrospectionController {
  constructor(private readonly introspect: IntrospectKey) {}

  router(): Router {
    const router = Router();
    router.post('/', formBody, (req, res) => this.post(req, res));
    router.all('/', (_req, res) =>
      sendProblem(
        res,
        {
          type: problemType('method-not-allowed'),
          title: 'Method Not Allowed',
          status: 405,
          detail: 'Introspection takes a POST',
        },
        { Allow: 'POST' },
      ),
    );
    return router;
  }

  private async post(req: Request, res: Response): Promise<void> {
    const result = await this.introspect.execute({ actor: actorOf(res.locals), token: unchecked((req.body as { token?: unknown }).token) });
    // RFC 7662 section 4: the answer must not be cached.
    res.setHeader('Cache-Control', 'no-store');
    res.json(presentIntrospection(result));
  }
}
