import { Actor } from '../../../domain/actor';
import { ValidationError } from '../../../domain/errors';
import { ModeToolConfig, parseAdditionalScopes, parseModeName } from '../../../domain/mode';
import { Clock } from '../../ports/clock.port';
import { ModeToolConfigFields, ModeToolConfigRepository } from '../../ports/mode-tool-config-repository.port';
import { found, parseFields, requireAdmin, requireUuid } from '../guards';

export interface UpdateModeToolConfigInput {
  actor: Actor;
  id: string;
  mode?: string;
  additionalScopes?: readonly string[];
}

/** Changes take effect at once, for active sessions of the mode too. */
export class UpdateModeToolConfig {
  constructor(
    private readonly modes: ModeToolConfigRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: UpdateModeToolConfigInput): Promise<ModeToolConfig> {
    requireAdmin(input.actor, 'change mode tool configurations');
    const id = requireUuid(input.id);
    const changes = parseFields<Partial<ModeToolConfigFields>>({
      mode: input.mode === undefined ? undefined : () => parseModeName(input.mode),
      additionalScopes: input.additionalScopes === undefined ? undefined : () => parseAdditionalScopes(input.additionalScopes),
    });
    if (Object.keys(changes).length === 0) throw ValidationError.single('body', 'mode or additional_scopes is required');
    return found(await this.modes.update(id, changes, this.clock.now()), 'mode tool config', id);
  }
}
