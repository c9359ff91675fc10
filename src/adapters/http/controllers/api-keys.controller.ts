import { Request, Response, Router } from 'express';
import { CreateKey } from '../../../application/use-cases/create-key/create-key.use-case';
import { GetKey } from '../../../application/use-cases/get-key/get-key.use-case';
import { ListKeys } from '../../../application/use-cases/list-keys/list-keys.use-case';
import { RevokeKey } from '../../../application/use-cases/revoke-key/revoke-key.use-case';
import { RollKey } from '../../../application/use-cases/roll-key/roll-key.use-case';
import { UpdateKey } from '../../../application/use-cases/update-key/update-key.use-case';
import { ValidationError } from '../../../domain/errors';
import { unchecked } from '../../unchecked';
import { ApiKeyDto, CreatedApiKeyDto, RolledApiKeyDto } from '../dto/api-key.dto';
import { allowedFields } from '../dto/body-fields';
import { CreateApiKeyDto } from '../dto/create-api-key.dto';
import { RollApiKeyDto, UpdateApiKeyDto } from '../dto/update-api-key.dto';
import { actorOf } from '../../edge/access-token-auth';
import { jsonBody } from '../middleware/json-body';

export interface ApiKeyUseCases {
  create: CreateKey;
  list: ListKeys;
  get: GetKey;
  revoke: RevokeKey;
  roll: RollKey;
  update: UpdateKey;
}

/** Spec sections 4.1-4.3, plus roll and edit; authentication runs before this router. */
export class ApiKeysController {
  constructor(private readonly useCases: ApiKeyUseCases) {}

  router(): Router {
    const router = Router();
    router.get('/', (req, res) => this.list(req, res));
    router.post('/', jsonBody, (req, res) => this.create(req, res));
    router.get('/:id', (req: Request<{ id: string }>, res) => this.get(req, res));
    router.patch('/:id', jsonBody, (req: Request<{ id: string }>, res) => this.update(req, res));
    router.post('/:id/roll', jsonBody, (req: Request<{ id: string }>, res) => this.roll(req, res));
    router.delete('/:id', (req, res) => this.revoke(req, res));
    return router;
  }

  async list(req: Request, res: Response): Promise<void> {
    const unknown = Object.keys(req.query).filter((name) => name !== 'user_id');
    if (unknown.length > 0) throw ValidationError.single(unknown[0], 'is not a known query parameter');
    const keys = await this.useCases.list.execute({ actor: actorOf(res.locals), userId: unchecked(req.query.user_id) });
    res.json(keys.map((listed) => ApiKeyDto.from(listed)));
  }

  async get(req: Request<{ id: string }>, res: Response): Promise<void> {
    const unknown = Object.keys(req.query);
    if (unknown.length > 0) throw ValidationError.single(unknown[0], 'is not a known query parameter');
    res.json(ApiKeyDto.from(await this.useCases.get.execute({ actor: actorOf(res.locals), id: req.params.id })));
  }

  async create(req: Request, res: Response): Promise<void> {
    const body = allowedFields(CreateApiKeyDto, req.body);
    const created = await this.useCases.create.execute({ actor: actorOf(res.locals), ...body.toInput() });
    res.status(201).setHeader('Cache-Control', 'no-store');
    res.json(CreatedApiKeyDto.from(created));
  }

  async update(req: Request<{ id: string }>, res: Response): Promise<void> {
    const body = allowedFields(UpdateApiKeyDto, req.body);
    const updated = await this.useCases.update.execute({ actor: actorOf(res.locals), id: req.params.id, ...body.toInput() });
    res.json(ApiKeyDto.from(updated));
  }

  async roll(req: Request<{ id: string }>, res: Response): Promise<void> {
    // The body is optional: no body at all rolls with no overlap.
    const body = allowedFields(RollApiKeyDto, req.body ?? {});
    const rolled = await this.useCases.roll.execute({ actor: actorOf(res.locals), id: req.params.id, ...body.toInput() });
    res.status(201).setHeader('Cache-Control', 'no-store');
    res.json(RolledApiKeyDto.from(rolled));
  }

  async revoke(req: Request<{ id: string }>, res: Response): Promise<void> {
    await this.useCases.revoke.execute({ actor: actorOf(res.locals), id: req.params.id });
    res.status(204).end();
  }
}
