import {
  namespacedPrompt,
  namespacedUri,
  splitPrompt,
  splitUri,
} from '../../../../../../src/application/use-cases/gateway/external/upstream-names';

describe('upstream names', () => {
  it('puts the server in the authority of a keygate URI and keeps the upstream URI verbatim', () => {
    expect(namespacedUri('files', 'file:///notes/a.txt')).toBe('keygate://files/file:///notes/a.txt');
    expect(splitUri('keygate://files/file:///notes/a.txt')).toEqual({ server: 'files', name: 'file:///notes/a.txt' });
    expect(splitUri('keygate://files/file:///notes/{name}')).toEqual({ server: 'files', name: 'file:///notes/{name}' });
    expect(splitUri('keygate://web-2/https://x.example/a?b=c#d')).toEqual({ server: 'web-2', name: 'https://x.example/a?b=c#d' });
  });

  it.each([
    'file:///notes/a.txt',
    'keygate://files',
    'keygate://files/',
    'keygate:///file:///a',
    'keygate://Files/x',
    'KEYGATE://files/x',
    `keygate://${'a'.repeat(33)}/x`,
    'keygate://fi_les/x',
  ])('reads %s as no keygate URI', (uri) => {
    expect(splitUri(uri)).toBeNull();
  });

  it('names prompts <server>__<prompt>, splitting at the first __ (server names have no _)', () => {
    expect(namespacedPrompt('files', 'greet')).toBe('files__greet');
    expect(splitPrompt('files__greet')).toEqual({ server: 'files', name: 'greet' });
    expect(splitPrompt('files__my__prompt')).toEqual({ server: 'files', name: 'my__prompt' });
    for (const name of ['greet', '__greet', 'files__', 'Files__greet', 'a_b__c']) expect(splitPrompt(name)).toBeNull();
  });
});
