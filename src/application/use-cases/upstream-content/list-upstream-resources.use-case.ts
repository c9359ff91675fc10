import { UpstreamItem } from '../../ports/upstream-content.port';
import { namespacedUri } from '../tools/external/upstream-names';
import { allows, resourceScopes } from '../tools/external/upstream-item-scopes';
import { UpstreamListings } from '../tools/external/upstream-listings';
import { ItemPage } from './item-page';
import { ListItemsInput, listItems } from './list-items';

/** resources/list: the owner's upstreams' resources the caller may read, as `keygate://<server>/<uri>`. */
export class ListUpstreamResources {
  constructor(private readonly listings: UpstreamListings) {}

  execute(input: ListItemsInput): Promise<ItemPage<UpstreamItem>> {
    return listItems(this.listings, input, 'resources',
      (record, item) => allows(input.scopes, resourceScopes(record, item.uri as string)),
      (server, item) => ({ ...item, uri: namespacedUri(server, item.uri as string) }));
  }
}
