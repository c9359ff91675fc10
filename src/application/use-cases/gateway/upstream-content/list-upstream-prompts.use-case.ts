import { UpstreamItem } from '../../../ports/upstream-content.port';
import { allows, promptScopes } from '../external/upstream-item-scopes';
import { UpstreamListings } from '../external/upstream-listings';
import { ItemPage } from './item-page';
import { ListItemsInput, listItems } from './list-items';

/** prompts/list: the owner's upstreams' prompts the caller may get, named by the endpoint's view (`<server>__<prompt>` on /mcp). */
export class ListUpstreamPrompts {
  constructor(private readonly listings: UpstreamListings) {}

  execute(input: ListItemsInput): Promise<ItemPage<UpstreamItem>> {
    return listItems(
      this.listings,
      input,
      'prompts',
      (record, item) => allows(input.scopes, promptScopes(record, item.name as string)),
      (view, server, item) => ({ ...item, name: view.promptName(server, item.name as string) }),
    );
  }
}
