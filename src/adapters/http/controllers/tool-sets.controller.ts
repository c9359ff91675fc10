import { Router } from 'express';
import { BuildAgentToolSet } from '../../../application/use-cases/build-agent-tool-set/build-agent-tool-set.use-case';
import { SCOPE_CATALOG } from '../../../domain/scope';
import { unchecked } from '../../unchecked';
import { allowedFields } from '../dto/body-fields';
import { ToolSetDto } from '../dto/mode-session.dto';
import { presentScopes, presentTool } from '../dto/scope-context.presenter';
import { actorOf } from '../../edge/access-token-auth';
import { jsonBody } from '../middleware/json-body';

/** POST /api/v1/tool-sets for workers that are not in-process, and GET /api/v1/scopes. */
export class ToolSetsController {
  constructor(private readonly build: BuildAgentToolSet) {}

  toolSets(): Router {
    const router = Router();
    router.post('/', jsonBody, async (req, res) => {
      const body = allowedFields(ToolSetDto, req.body);
      const set = await this.build.execute({
        actor: actorOf(res.locals),
        agentRoleId: unchecked(body.agent_role_id),
        modeSessionId: unchecked(body.mode_session_id),
      });
      res.json({ ...presentScopes(set.effectiveScopes), tools: set.tools.map(presentTool) });
    });
    return router;
  }

  scopes(): Router {
    const router = Router();
    router.get('/', (_req, res) => {
      res.json(SCOPE_CATALOG.map(({ scope, resource, permission, covers }) => ({ scope, resource, permission, covers })));
    });
    return router;
  }
}
