import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/adapters/http/openapi/openapi-document';

/** One answer as the client received it. */
export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  contentType: string | undefined;
  body: string;
}

type Json = Record<string, unknown>;

const DOCUMENT_ID = 'keygate-openapi';
const NDJSON = 'application/x-ndjson';
const MAX_ERROR_TEXT = 400;

interface Route {
  template: string;
  pattern: RegExp;
  item: Json;
}

/**
 * Checks answers against the OpenAPI document: the operation for the method
 * and path (or the document's `x-unmatched-requests` when there is none), the
 * status among its responses, the content type among that response's media
 * types (none: no body), and the body against the schema, line by line for
 * NDJSON. Schemas are compiled from the document itself by JSON pointer, so
 * the checker and the served document cannot disagree.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json = openApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.routes = Object.entries(document.paths as Record<string, Json>).map(([template, item]) => ({
      template,
      // Express matches paths case-insensitively and forgives one trailing slash.
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i'),
      item,
    }));
  }

  /** Every way `observed` departs from the document, each naming the route, the status and what is wrong. */
  check(observed: ObservedResponse): string[] {
    const method = observed.method.toLowerCase();
    const route = this.routes.find((candidate) => candidate.pattern.test(observed.path));
    // HEAD is answered by the GET route, without a body.
    const operationMethod = method === 'head' ? 'get' : method;
    const operation = route?.item[operationMethod] as Json | undefined;
    const where =
      route && operation
        ? `${method.toUpperCase()} ${route.template} -> ${observed.status}`
        : `${method.toUpperCase()} ${observed.path} (no operation; x-unmatched-requests) -> ${observed.status}`;
    const responsesPointer =
      route && operation ? ['paths', route.template, operationMethod, 'responses'] : ['x-unmatched-requests', 'responses'];
    const responses = this.at(responsesPointer) as Json;
    if (!(String(observed.status) in responses)) return [`${where}: status not documented`];
    const [pointer, response] = this.resolve([...responsesPointer, String(observed.status)]);
    const content = response.content as Json | undefined;
    if (method === 'head') return [];
    if (content === undefined) return observed.body.length === 0 ? [] : [`${where}: documented without a body, but one was sent`];
    const mediaType = observed.contentType?.split(';')[0].trim().toLowerCase();
    if (mediaType === undefined || !(mediaType in content)) {
      return [`${where}: content type ${mediaType ?? '(none)'} not documented (${Object.keys(content).join(', ')})`];
    }
    const validate = this.validator([...pointer, 'content', mediaType, 'schema']);
    const values = mediaType === NDJSON ? observed.body.split('\n').filter((line) => line !== '') : [observed.body];
    const violations: string[] = [];
    for (const [index, text] of values.entries()) {
      const label = mediaType === NDJSON ? `${where}, line ${index + 1}` : where;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        violations.push(`${label}: body is not JSON`);
        continue;
      }
      if (!validate(value)) violations.push(`${label}: ${schemaErrors(validate).slice(0, MAX_ERROR_TEXT)}`);
      if (violations.length >= 3) break;
    }
    return violations;
  }

  /** The object at `pointer`, following a response `$ref` into components; with its own pointer. */
  private resolve(pointer: string[]): [string[], Json] {
    const value = this.at(pointer) as Json;
    if (typeof value.$ref !== 'string') return [pointer, value];
    const target = value.$ref.replace(/^#\//, '').split('/').map(unescapePointer);
    return [target, this.at(target) as Json];
  }

  private at(pointer: string[]): unknown {
    return pointer.reduce<unknown>((node, key) => (node as Json | undefined)?.[key], this.document);
  }

  private validator(pointer: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${pointer.map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}

/** Where in the body and what, naming an unexpected property (ajv's own text leaves its name out). */
function schemaErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map(({ instancePath, message, params }) => {
      const extra = (params as { additionalProperty?: string }).additionalProperty;
      return `${instancePath || '(body)'} ${message}${extra === undefined ? '' : `: ${extra}`}`;
    })
    .join('; ');
}

function unescapePointer(part: string): string {
  return part.replace(/~1/g, '/').replace(/~0/g, '~');
}
