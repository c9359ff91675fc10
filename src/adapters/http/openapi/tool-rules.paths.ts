import { BuiltInToolRulesDto, ToolRulesInputDto } from '../dto/tool-rule.dto';
import { json, jsonBody, noContent, operation } from './operation';
import { schemaRef } from './dto-schemas';
import { arrayOf, Schema } from './schema-parts';

const tag = 'Tool rules';
const toolParameter: Schema = {
  name: 'tool',
  in: 'path',
  required: true,
  description: 'A built-in tool: agents, projects, routines, mcp_servers, chat or models (anything else is a 404).',
  schema: { type: 'string' },
};

export const toolRulePaths: Record<string, Schema> = {
  '/api/v1/tool-rules': {
    get: operation({
      tag,
      operationId: 'listToolRules',
      summary: 'Every built-in tool that has rules, with them (admins only)',
      ok: { 200: json('The tools with rules, by name.', arrayOf(schemaRef(BuiltInToolRulesDto))) },
      errors: [401, 403, 503],
    }),
  },
  '/api/v1/tool-rules/{tool}': {
    parameters: [toolParameter],
    put: operation({
      tag,
      operationId: 'putToolRules',
      summary: "Replace a built-in tool's rules (admins only); an empty list clears them",
      description:
        'Each condition must parse, be at most 2 KiB and read only args, key, user, tool, server and now: otherwise 400 naming ' +
        '`rules[<i>].when` with its line and column, and nothing is written. Other replicas apply the change within 5 seconds.',
      requestBody: jsonBody(schemaRef(ToolRulesInputDto)),
      ok: { 200: json("The tool's rules.", schemaRef(BuiltInToolRulesDto)) },
      errors: [400, 401, 403, 404, 413, 415, 503],
    }),
    delete: operation({
      tag,
      operationId: 'deleteToolRules',
      summary: "Clear a built-in tool's rules (admins only)",
      ok: { 204: noContent('Cleared (or there were none).') },
      errors: [401, 403, 404, 503],
    }),
  },
};
