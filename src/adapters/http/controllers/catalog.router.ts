import { Request, Router } from 'express';
import { Actor } from '../../../domain/actor';
import { allowedFields } from '../dto/body-fields';
import { actorOf } from '../../edge/access-token-auth';
import { jsonBody } from '../middleware/json-body';

/** The five operations of an admin-managed catalog (agent roles, mode tool configs). */
export interface CatalogOperations<T, Create, Update> {
  list(): Promise<T[]>;
  get(id: string): Promise<T>;
  create(actor: Actor, body: Create): Promise<T>;
  update(actor: Actor, id: string, body: Update): Promise<T>;
  remove(actor: Actor, id: string): Promise<void>;
  present(item: T): object;
}

/** The DTO classes of a catalog's POST and PATCH bodies. */
export interface CatalogBodies<Create, Update> {
  create: new () => Create;
  update: new () => Update;
}

/**
 * GET / and GET /:id for any authenticated caller; POST (201), PATCH /:id and
 * DELETE /:id (204), which the use-cases keep to admins. Authentication runs before this router.
 */
export function catalogRouter<T, Create extends object, Update extends object>(
  bodies: CatalogBodies<Create, Update>,
  ops: CatalogOperations<T, Create, Update>,
): Router {
  const router = Router();
  router.get('/', async (_req, res) => {
    res.json((await ops.list()).map((item) => ops.present(item)));
  });
  router.get('/:id', async (req, res) => {
    res.json(ops.present(await ops.get(req.params.id)));
  });
  router.post('/', jsonBody, async (req, res) => {
    const item = await ops.create(actorOf(res.locals), allowedFields(bodies.create, req.body));
    res.status(201).json(ops.present(item));
  });
  router.patch('/:id', jsonBody, async (req: Request<{ id: string }>, res) => {
    res.json(ops.present(await ops.update(actorOf(res.locals), req.params.id, allowedFields(bodies.update, req.body))));
  });
  router.delete('/:id', async (req, res) => {
    await ops.remove(actorOf(res.locals), req.params.id);
    res.status(204).end();
  });
  return router;
}
