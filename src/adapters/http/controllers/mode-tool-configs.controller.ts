import { Router } from 'express';
import { CreateModeToolConfig } from '../../../application/use-cases/mode-tool-configs/create-mode-tool-config.use-case';
import { DeleteModeToolConfig } from '../../../application/use-cases/mode-tool-configs/delete-mode-tool-config.use-case';
import { GetModeToolConfig } from '../../../application/use-cases/mode-tool-configs/get-mode-tool-config.use-case';
import { ListModeToolConfigs } from '../../../application/use-cases/mode-tool-configs/list-mode-tool-configs.use-case';
import { UpdateModeToolConfig } from '../../../application/use-cases/mode-tool-configs/update-mode-tool-config.use-case';
import { ModeToolConfigInputDto, ModeToolConfigUpdateDto } from '../dto/mode-tool-config.dto';
import { presentMode } from '../dto/scope-context.presenter';
import { catalogRouter } from './catalog.router';

export interface ModeToolConfigUseCases {
  list: ListModeToolConfigs;
  get: GetModeToolConfig;
  create: CreateModeToolConfig;
  update: UpdateModeToolConfig;
  remove: DeleteModeToolConfig;
}

/** /api/v1/mode-tool-configs */
export class ModeToolConfigsController {
  constructor(private readonly useCases: ModeToolConfigUseCases) {}

  router(): Router {
    const { list, get, create, update, remove } = this.useCases;
    return catalogRouter(
      { create: ModeToolConfigInputDto, update: ModeToolConfigUpdateDto },
      {
        list: () => list.execute(),
        get: (id) => get.execute({ id }),
        create: (actor, b) => create.execute({ actor, mode: b.mode, additionalScopes: b.additional_scopes }),
        update: (actor, id, b) => update.execute({ actor, id, mode: b.mode, additionalScopes: b.additional_scopes }),
        remove: (actor, id) => remove.execute({ actor, id }),
        present: presentMode,
      },
    );
  }
}
