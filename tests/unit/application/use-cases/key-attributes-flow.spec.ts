import { attributeFacts, keyFacts } from '../../../../src/application/use-cases/key-audit';
import { ApiKeyProps } from '../../../../src/domain/api-key';
import { ActorMother } from '../../../mothers/actor.mother';
import { ApiKeyMother, KEY_EPOCH } from '../../../mothers/api-key.mother';
import { ScopeSetMother } from '../../../mothers/scope-set.mother';
import { makeKeyService } from '../../../support/key-service';

const SERVICE_FIELDS = ['id', 'key_prefix', 'key_hash', 'user_id', 'last_used_at', 'revoked_at', 'created_at', 'replaced_by', 'budget_id'];

/** A key attribute no use-case names, as a later change would add one (docs/architecture.md, "Adding a field to keys"). */
const withNote = (note: string | null) => ({ note }) as Partial<ApiKeyProps>;

describe('key attributes the use-cases do not name', () => {
  it('are recorded in the trail under their wire name, and left out while null', () => {
    const key = ApiKeyMother.active({
      ...withNote('for the nightly job'),
      ...({ ticketRef: { systemId: 'ops-12' } } as Partial<ApiKeyProps>),
    });
    expect(keyFacts(key)).toMatchObject({ note: 'for the nightly job', ticket_ref: { system_id: 'ops-12' } });
    expect(keyFacts(ApiKeyMother.active(withNote(null)))).not.toHaveProperty('note');
    expect(attributeFacts(ApiKeyMother.active(withNote(null)))).toHaveProperty('note', null);
  });

  it('never bring the hash or any other field the service assigns into the trail', () => {
    const key = ApiKeyMother.active({ expiresAt: new Date(KEY_EPOCH.getTime() + 1000), scopes: ScopeSetMother.of('chat:read') });
    const recorded = Object.keys(attributeFacts(key));
    expect(recorded).toEqual(expect.arrayContaining(['name', 'scopes', 'expires_at', 'rate_limit', 'quota']));
    for (const assigned of SERVICE_FIELDS) expect(recorded).not.toContain(assigned);
    expect(JSON.stringify(keyFacts(key))).not.toContain(key.keyHash);
    expect(keyFacts(key)).toEqual({ name: 'ci', scopes: ['chat:read'], expires_at: '2026-06-01T12:00:01.000Z' });
  });

  it('are carried to the new key by a roll, and recorded in its key.created event', async () => {
    const { createKey, rollKey, repository, audit } = makeKeyService();
    const owner = ActorMother.user();
    const { key } = await createKey.execute({ actor: owner, name: 'ci' });
    Object.assign(repository.rows.get(key.id)!, withNote('for the nightly job'));
    const rolled = await rollKey.execute({ actor: owner, id: key.id });
    expect(rolled.key.attributes).toMatchObject({ note: 'for the nightly job' });
    expect(audit.records.find((r) => r.action === 'key.created' && r.keyId === rolled.key.id)?.details).toMatchObject({
      note: 'for the nightly job',
      replaces: key.id,
    });
  });
});
