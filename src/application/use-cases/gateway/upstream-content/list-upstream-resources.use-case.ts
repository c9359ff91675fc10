import { UpstreamItem } from '../../../ports/upstream-content.port';
import { allows, resourceScopes } from '../external/upstream-item-scopes';
import { UpstreamListings } from '../external/upstream-listings';
import { ItemPage } from './item-page';
import { ListItemsInput, listItems } from './list-items';

/** resources/list: the owner's upstreams' resources the caller may read, named by the endpoint's view (`keygate://<server>/<uri>` on /mcp). */
export class ListUpstreamResources {
  constructor(private readonly listings: UpstreamListings) {}

  execute(input: ListItemsInput): Promise<ItemPage<UpstreamItem>> {
    return listItems(
      this.listings,
      input,
      'resources',
      (record, item) => allows(input.scopes, resourceScopes(record, item.uri as string)),
      (view, server, item) => ({ ...item, uri: view.uri(server, item.uri as string) }),
    );
  }
}
