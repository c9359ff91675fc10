import { ResourceRecord } from '../../../domain/resource/resource-record';
import { ToolPin } from '../../../domain/tool';
import { ExternalToolOutcome } from '../../ports/external-tools.port';

type Failure = Extract<ExternalToolOutcome, { kind: 'error' }>;
type Relayed = Extract<ExternalToolOutcome, { kind: 'relayed' }>;

/**
 * What a built-in tool gives back, as domain values: the MCP presenter
 * renders them and fits them to the answer. A record's data is already what
 * the caller may see (its resource group's mask applied).
 */
export type ToolValue =
  /**
   * One record, or (`execution`) the execution an execute action queued.
   * An MCP server's record, to its owner, comes with its tool `pins`: the
   * presenter shows them in its data as the answer's size allows.
   */
  | { kind: 'record'; as: 'record' | 'execution'; record: ResourceRecord; pins?: ToolPin[] }
  /** Oldest first, at most MAX_LISTED_RECORDS; `truncated` when more matched. */
  | { kind: 'records'; records: ResourceRecord[]; truncated: boolean }
  | { kind: 'deleted'; id: string }
  | { kind: 'unassigned'; id: string };

/**
 * What a tool call produced. A failure inside the tool (bad arguments, an
 * unknown record) is an outcome too, not an exception: MCP reports it to the
 * model as a result with isError so it can correct itself. An external tool's
 * outcome is its server's own result (`relayed`) or an error.
 */
export type ToolOutcome = { kind: 'value'; value: ToolValue } | ExternalToolOutcome;

export const succeeded = (value: ToolValue): ToolOutcome => ({ kind: 'value', value });
export const failed = (message: string): Failure => ({ kind: 'error', message });
/** A call keygate kept from its upstream: a tool error, nothing sent. */
export const refusedCall = (message: string, refused: 'withheld' | 'unknown'): Failure => ({ kind: 'error', message, refused });
export const relayed = (result: Record<string, unknown>): Relayed => ({ kind: 'relayed', result });
