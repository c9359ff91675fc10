import { McpServerView } from '../../../application/use-cases/gateway/mcp-servers/mcp-server-record';
import { pinView } from '../../edge/tool-pins-view';
import { McpServerDto, McpServerInputDto } from './mcp-server.dto';

/**
 * An allow-list of a server record's fields. Header values arrive masked
 * (the use-cases apply the policy's mask), so no secret can leave here;
 * a map the record lacks is shown empty. `tool_pins` has every pin
 * (at most MCP_UPSTREAM_MAX_TOOLS), changed ones with the sha256 now served.
 */
export function presentMcpServer({ record, pins }: McpServerView): McpServerDto {
  // Stored data passed the mcp_servers policy when written: it has the input's shape.
  const data = record.data as unknown as McpServerInputDto;
  return {
    id: record.id,
    name: data.name,
    url: data.url,
    headers: data.headers ?? {},
    // Masked by the use-cases like header values.
    auth: data.auth ?? { type: 'static' },
    tool_scopes: data.tool_scopes ?? {},
    tool_rules: data.tool_rules ?? {},
    resource_scopes: data.resource_scopes ?? {},
    prompt_scopes: data.prompt_scopes ?? {},
    // fromEntries, not assignment: a tool named __proto__ is a key like any other.
    tool_pins: Object.fromEntries(pins.map((pin) => [pin.tool, pinView(pin)])),
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}
