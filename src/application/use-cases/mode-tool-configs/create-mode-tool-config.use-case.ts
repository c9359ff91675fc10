import { Actor } from '../../../domain/actor';
import { ModeToolConfig, parseAdditionalScopes, parseModeName } from '../../../domain/mode';
import { Clock } from '../../ports/clock.port';
import { ModeToolConfigFields, ModeToolConfigRepository } from '../../ports/mode-tool-config-repository.port';
import { parseFields, requireAdmin } from '../guards';

export interface CreateModeToolConfigInput {
  actor: Actor;
  mode: string;
  additionalScopes: readonly string[];
}

export class CreateModeToolConfig {
  constructor(
    private readonly modes: ModeToolConfigRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: CreateModeToolConfigInput): Promise<ModeToolConfig> {
    requireAdmin(input.actor, 'create mode tool configurations');
    const fields = parseFields<ModeToolConfigFields>({
      mode: () => parseModeName(input.mode),
      additionalScopes: () => parseAdditionalScopes(input.additionalScopes),
    });
    return this.modes.insert(fields, this.clock.now());
  }
}
