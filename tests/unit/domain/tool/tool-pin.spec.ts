import { definitionFrom, hasChanges, MAX_DEFINITION_DEPTH, pinChanges, pinnedText, ToolPin } from '../../../../src/domain/tool';

const pin = (tool: string, sha256: string, seenSha256 = sha256, described = true): ToolPin => ({
  tool,
  sha256,
  seenSha256,
  status: sha256 === seenSha256 ? 'approved' : 'changed',
  described,
});

describe('definitionFrom', () => {
  it('reads back the definition a pinnedText was made from, and nothing that is not one', () => {
    const definition = {
      name: 'echo',
      title: 'Echo',
      description: 'Echoes',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    };
    expect(definitionFrom(pinnedText(definition)!)).toEqual(definition);
    expect(definitionFrom(pinnedText({ name: 'bare', inputSchema: {} })!)).toEqual({ name: 'bare', inputSchema: {} });
    for (const text of [
      'not json',
      '[]',
      'null',
      '{"inputSchema":{}}',
      '{"name":"a","inputSchema":[]}',
      '{"name":"a","inputSchema":{},"title":1}',
    ])
      expect(definitionFrom(text)).toBeNull();
  });
});

describe('pinnedText', () => {
  it('does not depend on the order of keys at any level, and leaves absent fields out', () => {
    const a = pinnedText({
      name: 'echo',
      description: 'd',
      inputSchema: { type: 'object', properties: { b: { type: 'string' }, a: { type: 'number' } } },
    });
    const b = pinnedText({
      inputSchema: { properties: { a: { type: 'number' }, b: { type: 'string' } }, type: 'object' },
      description: 'd',
      title: undefined,
      name: 'echo',
    });
    expect(a).toBe(b);
    expect(a).toBe(
      '{"description":"d","inputSchema":{"properties":{"a":{"type":"number"},"b":{"type":"string"}},"type":"object"},"name":"echo"}',
    );
  });

  it('covers name, title, description, input and output schema and annotations, nothing else', () => {
    const base = { name: 'echo', inputSchema: { type: 'object' } };
    const texts = [
      base,
      { ...base, title: 'T' },
      { ...base, description: 'D' },
      { ...base, inputSchema: { type: 'object', required: ['x'] } },
      { ...base, outputSchema: { type: 'object' } },
      { ...base, annotations: { readOnlyHint: true } },
      { ...base, name: 'echo2' },
    ].map(pinnedText);
    expect(new Set(texts).size).toBe(texts.length);
    expect(pinnedText({ ...base, _meta: { x: 1 } } as never)).toBe(pinnedText(base));
  });

  it('refuses a definition nested deeper than MAX_DEFINITION_DEPTH', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < MAX_DEFINITION_DEPTH + 1; i++) deep = { a: deep };
    expect(pinnedText({ name: 'x', inputSchema: deep })).toBeNull();
    expect(pinnedText({ name: 'x', inputSchema: { a: { b: {} } } })).not.toBeNull();
  });
});

describe('pinChanges', () => {
  const pins = new Map([
    ['same', pin('same', 'h1')],
    ['moved', pin('moved', 'h1')],
    ['noted', pin('noted', 'h1', 'h2')],
    ['back', pin('back', 'h1', 'h2')],
  ]);

  it('pins first sights, notes a definition other than the approved one once, and approves the approved one served again', () => {
    const changes = pinChanges(pins, [
      { tool: 'same', sha256: 'h1' },
      { tool: 'new', sha256: 'h9' },
      { tool: 'moved', sha256: 'h2' },
      { tool: 'noted', sha256: 'h2' },
      { tool: 'back', sha256: 'h1' },
    ]);
    expect(changes).toEqual({
      first: [{ tool: 'new', sha256: 'h9' }],
      changed: [{ tool: 'moved', sha256: 'h2' }],
      restored: [{ tool: 'back', sha256: 'h1' }],
      described: [],
      gone: [],
    });
  });

  it("asks to keep the approved definition's text where none is kept, and never another definition's", () => {
    const undescribed = new Map<string, ToolPin>([
      ['old', pin('old', 'h1', 'h1', false)],
      ['kept', pin('kept', 'h1')],
      ['moved', pin('moved', 'h1', 'h1', false)],
      ['back', pin('back', 'h1', 'h2', false)],
    ]);
    const changes = pinChanges(undescribed, [
      { tool: 'old', sha256: 'h1', text: 'old text' },
      { tool: 'kept', sha256: 'h1', text: 'kept text' },
      { tool: 'moved', sha256: 'h2', text: 'withheld text' },
      { tool: 'back', sha256: 'h1', text: 'back text' },
    ]);
    expect(changes.described).toEqual([
      { tool: 'old', sha256: 'h1', text: 'old text' },
      { tool: 'back', sha256: 'h1', text: 'back text' },
    ]);
    expect(hasChanges(pinChanges(new Map([['old', pin('old', 'h1', 'h1', false)]]), [{ tool: 'old', sha256: 'h1', text: 't' }]))).toBe(
      true,
    );
    expect(hasChanges(pinChanges(new Map([['kept', pin('kept', 'h1')]]), [{ tool: 'kept', sha256: 'h1', text: 't' }]))).toBe(false);
  });

  it('asks to drop the kept text of a tool the listing no longer names, once', () => {
    const kept = new Map<string, ToolPin>([
      ['stays', pin('stays', 'h1')],
      ['dropped', pin('dropped', 'h1')],
      ['bare', pin('bare', 'h1', 'h1', false)],
    ]);
    const changes = pinChanges(kept, [{ tool: 'stays', sha256: 'h1' }]);
    expect(changes.gone).toEqual(['dropped']);
    expect(hasChanges(changes)).toBe(true);
    expect(hasChanges(pinChanges(new Map([['bare', pin('bare', 'h1', 'h1', false)]]), []))).toBe(false);
  });

  it('notes a third definition of a changed tool again', () => {
    expect(pinChanges(pins, [{ tool: 'noted', sha256: 'h3' }]).changed).toEqual([{ tool: 'noted', sha256: 'h3' }]);
  });
});
