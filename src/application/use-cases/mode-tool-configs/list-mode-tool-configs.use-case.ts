import { ModeToolConfig } from '../../../domain/mode';
import { ModeToolConfigRepository } from '../../ports/mode-tool-config-repository.port';

/** Every mode tool configuration, by mode name. */
export class ListModeToolConfigs {
  constructor(private readonly modes: ModeToolConfigRepository) {}

  async execute(_input: Record<string, never> = {}): Promise<ModeToolConfig[]> {
    return this.modes.list();
  }
}
