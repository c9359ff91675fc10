import { Request, Router } from 'express';
import { ListToolRules } from '../../../application/use-cases/tool-rules/list-tool-rules.use-case';
import { PutToolRules } from '../../../application/use-cases/tool-rules/put-tool-rules.use-case';
import { BuiltInToolRules } from '../../../application/ports/tool-rule-store.port';
import { actorOf } from '../../edge/access-token-auth';
import { allowedFields } from '../dto/body-fields';
import { BuiltInToolRulesDto, ToolRulesInputDto } from '../dto/tool-rule.dto';
import { jsonBody } from '../middleware/json-body';

type ToolRequest = Request<{ tool: string }>;

/** /api/v1/tool-rules: the built-in tools' rules, admins only (the use-cases say so). */
export class ToolRulesController {
  constructor(
    private readonly list: ListToolRules,
    private readonly put: PutToolRules,
  ) {}

  router(): Router {
    const router = Router();
    router.get('/', async (_req, res) => {
      res.json((await this.list.execute({ actor: actorOf(res.locals) })).map(present));
    });
    router.put('/:tool', jsonBody, async (req: ToolRequest, res) => {
      const body = allowedFields(ToolRulesInputDto, req.body);
      res.json(present(await this.put.execute({ actor: actorOf(res.locals), tool: req.params.tool, rules: body.rules })));
    });
    router.delete('/:tool', async (req: ToolRequest, res) => {
      await this.put.execute({ actor: actorOf(res.locals), tool: req.params.tool, rules: [] });
      res.status(204).end();
    });
    return router;
  }
}

/** An allow-list of the stored fields. */
function present(stored: BuiltInToolRules): BuiltInToolRulesDto {
  return {
    tool: stored.tool,
    rules: stored.rules.map(({ when, effect, message, approvers }) => ({ when, effect, message, ...(approvers && { approvers }) })),
    updated_at: stored.updatedAt.toISOString(),
  };
}
