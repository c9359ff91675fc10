import { Request, Router } from 'express';
import { ExplainToolCall } from '../../../application/use-cases/explain/explain-tool-call.use-case';
import { ListKeyTools } from '../../../application/use-cases/explain/list-key-tools.use-case';
import { ValidationError } from '../../../domain/errors';
import { actorOf } from '../../edge/access-token-auth';
import { allowedFields } from '../dto/body-fields';
import { ExplainRequestDto, KeyToolsDto, ToolExplanationDto } from '../dto/explain.dto';
import { jsonBody } from '../middleware/json-body';

const PAGING = ['limit', 'cursor'];

/** "Why can't this key use X?": POST /api/v1/authz/explain and GET /api/v1/api-keys/:id/tools (the key's owner, or an admin). */
export class ExplainController {
  constructor(
    private readonly explainCall: ExplainToolCall,
    private readonly listTools: ListKeyTools,
  ) {}

  /** Mounted at /api/v1/authz. */
  explain(): Router {
    const router = Router();
    router.post('/explain', jsonBody, async (req, res) => {
      const body = allowedFields(ExplainRequestDto, req.body);
      const explained = await this.explainCall.execute({
        actor: actorOf(res.locals),
        keyId: body.key_id,
        tool: body.tool,
        ...(body.arguments !== undefined && { arguments: body.arguments }),
      });
      res.json(ToolExplanationDto.from(explained));
    });
    return router;
  }

  /** Mounted at /api/v1/api-keys, before the key routes: it answers only /:id/tools. */
  keyTools(): Router {
    const router = Router();
    router.get('/:id/tools', async (req: Request<{ id: string }>, res) => {
      const unknown = Object.keys(req.query).find((name) => !PAGING.includes(name));
      if (unknown !== undefined) throw ValidationError.single(unknown, 'is not a known query parameter');
      const tools = await this.listTools.execute({
        actor: actorOf(res.locals),
        keyId: req.params.id,
        limit: req.query.limit,
        cursor: req.query.cursor,
      });
      res.json(KeyToolsDto.from(tools));
    });
    return router;
  }
}
