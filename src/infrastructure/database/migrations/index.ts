import { CreateApiKeys1763900000000 } from './1763900000000-create-api-keys';
import { CreateAgentRolesAndModes1763900000001 } from './1763900000001-create-agent-roles-and-modes';
import { CreateResourceRecords1763900000002 } from './1763900000002-create-resource-records';
import { NotifyKeyRevocations1763900000003 } from './1763900000003-notify-key-revocations';
import { NotifyMcpServerChanges1763900000004 } from './1763900000004-notify-mcp-server-changes';
import { NotifyKeyChanges1763900000005 } from './1763900000005-notify-key-changes';
import { NotifyMcpServersTruncated1763900000006 } from './1763900000006-notify-mcp-servers-truncated';
import { KeyRollAndAuditTrail1763900000007 } from './1763900000007-key-roll-and-audit-trail';
import { UsageLimits1763900000008 } from './1763900000008-usage-limits';
import { McpSessions1763900000009 } from './1763900000009-mcp-sessions';
import { McpToolPins1763900000010 } from './1763900000010-mcp-tool-pins';
import { McpUpstreamSessions1763900000011 } from './1763900000011-mcp-upstream-sessions';
import { McpPostStreams1763900000012 } from './1763900000012-mcp-post-streams';
import { McpTokenSessions1763900000016 } from './1763900000016-mcp-token-sessions';
import { McpResourceSubscriptions1763900000013 } from './1763900000013-mcp-resource-subscriptions';
import { McpConnections1763900000017 } from './1763900000017-mcp-connections';
import { McpConnectionAttempts1763900000018 } from './1763900000018-mcp-connection-attempts';
import { McpClientRegistrations1763900000019 } from './1763900000019-mcp-client-registrations';
import { McpToolPinDefinitions1763900000020 } from './1763900000020-mcp-tool-pin-definitions';
import { ToolRules1763900000021 } from './1763900000021-tool-rules';
import { ToolCallApprovals1763900000022 } from './1763900000022-tool-call-approvals';
import { ToolUsage1763900000023 } from './1763900000023-tool-usage';
import { PostStreamSeq1763900000024 } from './1763900000024-post-stream-seq';

/** Listed explicitly so the same list works from ts sources, compiled code and tests. */
export const MIGRATIONS = [
  CreateApiKeys1763900000000,
  CreateAgentRolesAndModes1763900000001,
  CreateResourceRecords1763900000002,
  NotifyKeyRevocations1763900000003,
  NotifyMcpServerChanges1763900000004,
  NotifyKeyChanges1763900000005,
  NotifyMcpServersTruncated1763900000006,
  KeyRollAndAuditTrail1763900000007,
  UsageLimits1763900000008,
  McpSessions1763900000009,
  McpToolPins1763900000010,
  McpUpstreamSessions1763900000011,
  McpPostStreams1763900000012,
  McpTokenSessions1763900000016,
  McpResourceSubscriptions1763900000013,
  McpConnections1763900000017,
  McpConnectionAttempts1763900000018,
  McpClientRegistrations1763900000019,
  McpToolPinDefinitions1763900000020,
  ToolRules1763900000021,
  ToolCallApprovals1763900000022,
  ToolUsage1763900000023,
  PostStreamSeq1763900000024,
];
