import { Router } from 'express';
import { BuildAgentToolSet } from '../../../application/use-cases/build-agent-tool-set/build-agent-tool-set.use-case';
import { SCOPE_CATALOG } from '../../../domain/scope';
import { allowedFields } from '../dto/body-fields';
import { ScopeCatalogEntryDto, ToolSetDto, ToolSetRequestDto } from '../dto/tool-set.dto';
import { presentScopes, presentTool } from '../dto/scope-context.presenter';
import { actorOf } from '../../edge/access-token-auth';
import { jsonBody } from '../middleware/json-body';

/** POST /api/v1/tool-sets for workers that are not in-process, and GET /api/v1/scopes. */
export class ToolSetsController {
  constructor(private readonly build: BuildAgentToolSet) {}

  toolSets(): Router {
    const router = Router();
    router.post('/', jsonBody, async (req, res) => {
      const body = allowedFields(ToolSetRequestDto, req.body);
      const set = await this.build.execute({
        actor: actorOf(res.locals),
        agentRoleId: body.agent_role_id,
        modeSessionId: body.mode_session_id,
      });
      const answer: ToolSetDto = { ...presentScopes(set.effectiveScopes), tools: set.tools.map(presentTool) };
      res.json(answer);
    });
    return router;
  }

  scopes(): Router {
    const router = Router();
    router.get('/', (_req, res) => {
      res.json(
        SCOPE_CATALOG.map(({ scope, resource, permission, covers }): ScopeCatalogEntryDto => ({ scope, resource, permission, covers })),
      );
    });
    return router;
  }
}
