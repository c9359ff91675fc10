import { Actor } from '../../../domain/actor';
import { NotFoundError } from '../../../domain/errors';
import { Clock } from '../../ports/clock.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { found, requireAdmin, requireUuid } from '../guards';
import { modeConfigEvent } from '../scope-context-audit';

export interface DeleteModeToolConfigInput {
  actor: Actor;
  id: string;
}

/** Deleting a mode ends its sessions: their widening disappears with it. */
export class DeleteModeToolConfig {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: DeleteModeToolConfigInput): Promise<void> {
    requireAdmin(input.actor, 'delete mode tool configurations');
    const id = requireUuid(input.id);
    await this.work.run(async ({ modes, audit }) => {
      const config = found(await modes.findById(id), 'mode tool config', id);
      if (!(await modes.delete(id))) throw new NotFoundError('mode tool config', id);
      await audit.append([modeConfigEvent('mode_tool_config.deleted', input.actor, config, this.clock.now())]);
    });
  }
}
