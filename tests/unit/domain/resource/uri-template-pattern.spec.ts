import { UriTemplatePattern } from '../../../../src/domain/resource/uri-template-pattern';

const matches = (template: string, uri: string) => UriTemplatePattern.of(template)!.matches(uri);

describe('UriTemplatePattern', () => {
  it.each([
    ['file:///notes/{name}', 'file:///notes/a.txt', true],
    ['file:///notes/{name}', 'file:///notes/', true],
    ['file:///notes/{name}', 'file:///notes/a/b.txt', false],
    ['file:///notes/{name}', 'file:///other/a.txt', false],
    ['file:///notes/{name}.md', 'file:///notes/a.md', true],
    ['file:///notes/{name}.md', 'file:///notes/a.txt', false],
    ['file:///{+path}', 'file:///a/b/c?x=1', true],
    ['db://{table}{?limit,offset}', 'db://users?limit=5&offset=2', true],
    ['db://{table}{?limit}', 'db://users#frag', false],
    ['api://v1{/segments*}', 'api://v1/a/b', true],
    ['api://v1{/segments*}', 'api://v1/a?b', false],
  ])('%s against %s: %s', (template, uri, expected) => {
    expect(matches(template, uri)).toBe(expected);
  });

  it('takes time in proportion to URI length × parts, whatever the input', () => {
    const template = Array.from({ length: 30 }, () => '{+a}x').join('');
    const started = Date.now();
    expect(matches(template, 'x'.repeat(8192) + 'y')).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it.each([['a{b'], ['a}b'], ['a{}'], ['a{+}'], ['a{b{c}}']])('reads %s as no template', (template) => {
    expect(UriTemplatePattern.problemWith(template)).not.toBeNull();
    expect(UriTemplatePattern.of(template)).toBeNull();
  });

  it('accepts plain URIs and templates', () => {
    expect(UriTemplatePattern.problemWith('file:///a.txt')).toBeNull();
    expect(UriTemplatePattern.problemWith('file:///{a}/{+b}{?c,d}')).toBeNull();
  });
});
