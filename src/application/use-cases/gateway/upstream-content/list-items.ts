import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { ScopeSet } from '../../../../domain/scope';
import { ItemKind, UpstreamItem } from '../../../ports/upstream-content.port';
import { UpstreamListings } from '../external/upstream-listings';
import { NAMESPACED_VIEW, UpstreamView } from '../external/upstream-view';
import { ItemPage, pageOf, parseCursor } from './item-page';

export interface ListItemsInput {
  userId: string;
  scopes: ScopeSet;
  /** A nextCursor this server handed out. */
  cursor?: string;
  /** Bytes of items' JSON the page may hold (a batch's share); MAX_PAGE_BYTES when left out. */
  pageBytes?: number;
  /** The endpoint's view: which servers, and how their items are named; /mcp's when left out. */
  view?: UpstreamView;
  /** The OAuth access token the caller came with (secret; absent for a key), for token_exchange servers. */
  subjectToken?: string;
}

/** What the three list use-cases share: the cursor read first, then the visible items, named as the view names them, one page of them. */
export async function listItems(
  listings: UpstreamListings,
  input: ListItemsInput,
  kind: ItemKind,
  visible: (record: ResourceRecord, item: UpstreamItem) => boolean,
  rename: (view: UpstreamView, server: string, item: UpstreamItem) => UpstreamItem,
): Promise<ItemPage<UpstreamItem>> {
  const start = parseCursor(input.cursor);
  const view = input.view ?? NAMESPACED_VIEW;
  const served = await listings.visible(input.userId, input.scopes, kind, view, visible, input.subjectToken);
  return pageOf(
    served.map(({ record, item }) => rename(view, record.data.name as string, item)),
    start,
    input.pageBytes,
  );
}
