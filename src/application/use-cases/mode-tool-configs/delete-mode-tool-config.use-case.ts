import { Actor } from '../../../domain/actor';
import { NotFoundError } from '../../../domain/errors';
import { ModeToolConfigRepository } from '../../ports/mode-tool-config-repository.port';
import { requireAdmin, requireUuid } from '../guards';

export interface DeleteModeToolConfigInput {
  actor: Actor;
  id: string;
}

/** Deleting a mode ends its sessions: their widening disappears with it. */
export class DeleteModeToolConfig {
  constructor(private readonly modes: ModeToolConfigRepository) {}

  async execute(input: DeleteModeToolConfigInput): Promise<void> {
    requireAdmin(input.actor, 'delete mode tool configurations');
    const id = requireUuid(input.id);
    if (!(await this.modes.delete(id))) throw new NotFoundError('mode tool config', id);
  }
}
