import { UpstreamItem } from '../../../ports/upstream-content.port';
import { allows, templateScopes } from '../external/upstream-item-scopes';
import { UpstreamListings } from '../external/upstream-listings';
import { ItemPage } from './item-page';
import { ListItemsInput, listItems } from './list-items';

/** resources/templates/list: the owner's upstreams' URI templates the caller may use, named by the endpoint's view (`keygate://<server>/<template>` on /mcp). */
export class ListUpstreamResourceTemplates {
  constructor(private readonly listings: UpstreamListings) {}

  execute(input: ListItemsInput): Promise<ItemPage<UpstreamItem>> {
    return listItems(
      this.listings,
      input,
      'resourceTemplates',
      (record, item) => allows(input.scopes, templateScopes(record, item.uriTemplate as string)),
      (view, server, item) => ({ ...item, uriTemplate: view.uri(server, item.uriTemplate as string) }),
    );
  }
}
