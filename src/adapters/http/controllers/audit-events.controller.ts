import { Request, Response, Router } from 'express';
import { ExportAuditEvents, ExportAuditEventsInput } from '../../../application/use-cases/audit-events/export-audit-events.use-case';
import { ListAuditEvents } from '../../../application/use-cases/audit-events/list-audit-events.use-case';
import { ValidationError } from '../../../domain/errors';
import { unchecked } from '../../unchecked';
import { presentAuditEvent } from '../dto/audit-event.presenter';
import { actorOf } from '../../edge/access-token-auth';
import { streamNdjson } from '../ndjson-stream';

const FILTER_PARAMETERS = ['action', 'key_id', 'user_id', 'since', 'until'];
const PAGING_PARAMETERS = ['limit', 'cursor'];
const NDJSON = 'application/x-ndjson';

export interface AuditEventUseCases {
  list: ListAuditEvents;
  export: ExportAuditEvents;
}

/**
 * GET /api/v1/audit-events: pages of JSON, newest first, or with
 * `Accept: application/x-ndjson` every matching event as one stream, oldest
 * first (for a SIEM). The export does not page: limit and cursor are a 400 there.
 */
export class AuditEventsController {
  constructor(private readonly useCases: AuditEventUseCases) {}

  router(): Router {
    const router = Router();
    router.get('/', (req, res) => (req.accepts(['application/json', NDJSON]) === NDJSON ? this.export(req, res) : this.list(req, res)));
    return router;
  }

  async list(req: Request, res: Response): Promise<void> {
    onlyParameters(req, [...FILTER_PARAMETERS, ...PAGING_PARAMETERS]);
    const page = await this.useCases.list.execute({
      ...this.filterOf(req, res),
      limit: unchecked(req.query.limit),
      cursor: unchecked(req.query.cursor),
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ events: page.events.map(presentAuditEvent), next_cursor: page.nextCursor });
  }

  async export(req: Request, res: Response): Promise<void> {
    const paging = PAGING_PARAMETERS.find((name) => name in req.query);
    if (paging) throw ValidationError.single(paging, 'does not apply to the NDJSON export, which streams every matching event');
    onlyParameters(req, FILTER_PARAMETERS);
    const batches = await this.useCases.export.execute(this.filterOf(req, res));
    await streamNdjson(req, res, batches, presentAuditEvent);
  }

  private filterOf(req: Request, res: Response): ExportAuditEventsInput {
    return {
      actor: actorOf(res.locals),
      action: unchecked(req.query.action),
      keyId: unchecked(req.query.key_id),
      userId: unchecked(req.query.user_id),
      since: unchecked(req.query.since),
      until: unchecked(req.query.until),
    };
  }
}

function onlyParameters(req: Request, known: readonly string[]): void {
  const unknown = Object.keys(req.query).find((name) => !known.includes(name));
  if (unknown !== undefined) throw ValidationError.single(unknown, 'is not a known query parameter');
}
