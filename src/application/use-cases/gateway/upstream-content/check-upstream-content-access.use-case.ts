import { UnknownReferenceError, UnknownResourceError } from '../../../../domain/errors';
import { ScopeSet } from '../../../../domain/scope';
import { allows, promptScopes, resourceScopes } from '../external/upstream-item-scopes';
import { UpstreamListings } from '../external/upstream-listings';
import { NAMESPACED_VIEW, UpstreamView } from '../external/upstream-view';
import { requireText } from './content-input';

export interface CheckUpstreamContentAccessInput {
  userId: string;
  scopes: ScopeSet;
  method: 'resources/read' | 'prompts/get';
  /** The URI or prompt name as the view names it. */
  name: string;
  view?: UpstreamView;
}

/**
 * Whether the caller may still read a resource or get a prompt, as
 * ReadUpstreamResource and GetUpstreamPrompt decide it before they contact
 * the upstream (the owner's server, its resource_scopes or prompt_scopes),
 * refused with the same error. A later round of a read or prompt held open
 * for the client's input (a parked call) asks it again, as every round of a
 * tools/call passes the tool gate again.
 */
export class CheckUpstreamContentAccess {
  constructor(private readonly listings: UpstreamListings) {}

  async execute(input: CheckUpstreamContentAccessInput): Promise<void> {
    const view = input.view ?? NAMESPACED_VIEW;
    if (input.method === 'resources/read') {
      const uri = requireText(input.name, 'uri');
      const target = await this.listings.resourceAt(input.userId, view, uri);
      if (target === null || !allows(input.scopes, resourceScopes(target.record, target.name))) throw new UnknownResourceError(uri);
      return;
    }
    const name = requireText(input.name, 'name');
    const target = view.splitPrompt(name);
    const record = target === null ? null : await this.listings.server(input.userId, target.server);
    if (target === null || record === null || !allows(input.scopes, promptScopes(record, target.name)))
      throw new UnknownReferenceError('prompt', name);
  }
}
