import { Actor } from '../../../domain/actor';
import { ModeToolConfig, parseAdditionalScopes, parseModeName } from '../../../domain/mode';
import { Clock } from '../../ports/clock.port';
import { ModeToolConfigFields } from '../../ports/mode-tool-config-repository.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { parseFields, requireAdmin } from '../guards';
import { modeConfigEvent } from '../scope-context-audit';

export interface CreateModeToolConfigInput {
  actor: Actor;
  mode: string;
  additionalScopes: readonly string[];
}

export class CreateModeToolConfig {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: CreateModeToolConfigInput): Promise<ModeToolConfig> {
    requireAdmin(input.actor, 'create mode tool configurations');
    const fields = parseFields<ModeToolConfigFields>({
      mode: () => parseModeName(input.mode),
      additionalScopes: () => parseAdditionalScopes(input.additionalScopes),
    });
    return this.work.run(async ({ modes, audit }) => {
      const now = this.clock.now();
      const config = await modes.insert(fields, now);
      await audit.append([modeConfigEvent('mode_tool_config.created', input.actor, config, now)]);
      return config;
    });
  }
}
