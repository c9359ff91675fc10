import { Router } from 'express';
import { EndModeSession } from '../../../application/use-cases/mode-sessions/end-mode-session.use-case';
import { GetModeSession } from '../../../application/use-cases/mode-sessions/get-mode-session.use-case';
import { StartModeSession } from '../../../application/use-cases/mode-sessions/start-mode-session.use-case';
import { allowedFields } from '../dto/body-fields';
import { StartModeSessionDto } from '../dto/mode-session.dto';
import { presentSession } from '../dto/scope-context.presenter';
import { actorOf } from '../../edge/access-token-auth';
import { jsonBody } from '../middleware/json-body';

/** /api/v1/mode-sessions: start (201), show, end (204). */
export class ModeSessionsController {
  constructor(
    private readonly start: StartModeSession,
    private readonly get: GetModeSession,
    private readonly end: EndModeSession,
  ) {}

  router(): Router {
    const router = Router();
    router.post('/', jsonBody, async (req, res) => {
      const body = allowedFields(StartModeSessionDto, req.body);
      const view = await this.start.execute({ actor: actorOf(res.locals), agentRoleId: body.agent_role_id, mode: body.mode });
      res.status(201).json(presentSession(view));
    });
    router.get('/:id', async (req, res) => {
      res.json(presentSession(await this.get.execute({ actor: actorOf(res.locals), id: req.params.id })));
    });
    router.delete('/:id', async (req, res) => {
      await this.end.execute({ actor: actorOf(res.locals), id: req.params.id });
      res.status(204).end();
    });
    return router;
  }
}
