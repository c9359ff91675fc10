import { ModeToolConfig } from '../../../domain/mode';
import { ModeToolConfigRepository } from '../../ports/mode-tool-config-repository.port';
import { found, requireUuid } from '../guards';

export interface GetModeToolConfigInput {
  id: string;
}

export class GetModeToolConfig {
  constructor(private readonly modes: ModeToolConfigRepository) {}

  async execute(input: GetModeToolConfigInput): Promise<ModeToolConfig> {
    const id = requireUuid(input.id);
    return found(await this.modes.findById(id), 'mode tool config', id);
  }
}
