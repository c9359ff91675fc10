import { Response } from 'express';
import { KeyPrincipal } from '../../../../src/application/use-cases/validate-key/validate-key.use-case';
import { actorOf } from '../../../../src/adapters/edge/access-token-auth';
import { principalOf } from '../../../../src/adapters/edge/api-key-auth';
import { ResponseLocals } from '../../../../src/adapters/edge/response-locals';
import { messagesOf } from '../../../../src/adapters/mcp/json-rpc-body';
import { sessionOf } from '../../../../src/adapters/mcp/sessions/mcp-session-edge';
import { viewOf } from '../../../../src/adapters/mcp/server-view';
import { ActorMother } from '../../../mothers/actor.mother';
import { ScopeSetMother } from '../../../mothers/scope-set.mother';

const principal: KeyPrincipal = {
  keyId: 'k',
  userId: 'alice',
  scopes: ScopeSetMother.of('projects:read'),
  budgetId: 'k',
  rateLimit: null,
  hasQuota: false,
};

describe('res.locals, typed once (ResponseLocals)', () => {
  it('hands back what the middleware put there', () => {
    const actor = ActorMother.user();
    const messages = [{ jsonrpc: '2.0' as const, id: 1, method: 'tools/list' }];
    const locals: ResponseLocals = { principal, actor, messages };
    expect(principalOf(locals)).toBe(principal);
    expect(actorOf(locals)).toBe(actor);
    expect(messagesOf(locals)).toBe(messages);
  });

  it('names the missing step when a handler reads what no middleware set, instead of handing on undefined', () => {
    expect(() => principalOf({})).toThrow('No principal on this request: the key check must run first');
    expect(() => actorOf({})).toThrow('No actor on this request: the access token check must run first');
    expect(() => messagesOf({})).toThrow('No messages on this request: jsonRpcBody must run first');
  });

  it('leaves the optional ones optional: no session, no view on /mcp', () => {
    expect(sessionOf({})).toBeUndefined();
    expect(viewOf({})).toBeUndefined();
  });
});

// Never run: typecheck (which covers tests) fails if Express's res.locals stops being typed by ResponseLocals.
export function typedLocals(res: Response): void {
  // @ts-expect-error a principal is a KeyPrincipal, not a raw key
  res.locals.principal = 'svc_raw';
  // @ts-expect-error sessionDeferred is a flag
  res.locals.sessionDeferred = 'yes';
  const principalRead: KeyPrincipal | undefined = res.locals.principal;
  void principalRead;
}
