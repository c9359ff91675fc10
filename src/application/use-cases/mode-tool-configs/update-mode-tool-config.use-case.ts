import { Actor } from '../../../domain/actor';
import { ValidationError } from '../../../domain/errors';
import { ModeToolConfig, parseAdditionalScopes, parseModeName } from '../../../domain/mode';
import { Clock } from '../../ports/clock.port';
import { ModeToolConfigFields } from '../../ports/mode-tool-config-repository.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { found, parseFields, requireAdmin, requireUuid } from '../guards';
import { changedFields, modeConfigEvent } from '../scope-context-audit';

export interface UpdateModeToolConfigInput {
  actor: Actor;
  id: string;
  mode?: string;
  additionalScopes?: readonly string[];
}

/** Changes take effect at once, for active sessions of the mode too. */
export class UpdateModeToolConfig {
  constructor(
    private readonly work: UnitOfWork,
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
    return this.work.run(async ({ modes, audit }) => {
      const now = this.clock.now();
      const config = found(await modes.update(id, changes, now), 'mode tool config', id);
      const changed = changedFields(changes, { additionalScopes: 'additional_scopes' });
      await audit.append([modeConfigEvent('mode_tool_config.updated', input.actor, config, now, changed)]);
      return config;
    });
  }
}
