import { Resource } from '../../../../domain/scope';
import { ExternalTool } from '../../../ports/external-tools.port';

/** What a call runs: a built-in tool's resource group, or a tool of one of the user's upstream servers. */
export type ToolTarget = { kind: 'built-in'; resource: Resource } | { kind: 'external'; tool: ExternalTool };
