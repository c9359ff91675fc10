import { Request, Response, Router } from 'express';
import { CreateKey } from '../../../application/use-cases/create-key/create-key.use-case';
import { ListKeys } from '../../../application/use-cases/list-keys/list-keys.use-case';
import { RevokeKey } from '../../../application/use-cases/revoke-key/revoke-key.use-case';
import { ValidationError } from '../../../domain/errors';
import { unchecked } from '../../unchecked';
import { presentCreatedKey, presentKey } from '../dto/api-key.presenter';
import { allowedFields } from '../dto/body-fields';
import { CreateApiKeyDto } from '../dto/create-api-key.dto';
import { actorOf } from '../middleware/access-token-auth';
import { jsonBody } from '../middleware/json-body';

/** Spec sections 4.1-4.3; authentication runs before this router. */
export class ApiKeysController {
  constructor(
    private readonly createKey: CreateKey,
    private readonly listKeys: ListKeys,
    private readonly revokeKey: RevokeKey,
  ) {}

  router(): Router {
    const router = Router();
    router.get('/', (req, res) => this.list(req, res));
    router.post('/', jsonBody, (req, res) => this.create(req, res));
    router.delete('/:id', (req, res) => this.revoke(req, res));
    return router;
  }

  async list(req: Request, res: Response): Promise<void> {
    const unknown = Object.keys(req.query).filter((name) => name !== 'user_id');
    if (unknown.length > 0) throw ValidationError.single(unknown[0], 'is not a known query parameter');
    const keys = await this.listKeys.execute({ actor: actorOf(res.locals), userId: unchecked(req.query.user_id) });
    res.json(keys.map(presentKey));
  }

  async create(req: Request, res: Response): Promise<void> {
    const body = allowedFields(CreateApiKeyDto, req.body);
    const { key, rawKey } = await this.createKey.execute({
      actor: actorOf(res.locals),
      name: unchecked(body.name),
      userId: unchecked(body.user_id),
      expiresAt: unchecked(body.expires_at),
      scopes: unchecked(body.scopes),
    });
    res.status(201).setHeader('Cache-Control', 'no-store');
    res.json(presentCreatedKey(key, rawKey));
  }

  async revoke(req: Request<{ id: string }>, res: Response): Promise<void> {
    await this.revokeKey.execute({ actor: actorOf(res.locals), id: req.params.id });
    res.status(204).end();
  }
}
