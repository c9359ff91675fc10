import { EntityManager } from 'typeorm';
import { ToolPinStore } from '../../application/ports/tool-pin-store.port';
import { PinApproval, PinnedDefinition, ServedDefinition, ToolPin } from '../../domain/tool';
import { databaseCall } from './database-unavailable';

interface PinRow {
  tool_name: string;
  sha256: string;
  seen_sha256: string;
  status: ToolPin['status'];
  described: boolean;
}

// The text itself is read only by definitions(): a listing load needs to know whether it is kept, not what it says.
const COLUMNS = 'tool_name, sha256, seen_sha256, status, definition_text IS NOT NULL AS described';
const RETURNED = 'p.tool_name, p.sha256, p.seen_sha256, p.status, p.definition_text IS NOT NULL AS described';
const SERVED = 'unnest($2::text[], $3::text[]) AS t(name, sha256)';

/** ToolPinStore on PostgreSQL (migrations 1763900000010, 1763900000020). Each write is one conditional statement, so replicas racing on a server agree. */
export class TypeormToolPinStore implements ToolPinStore {
  /** The data source's manager, or a transaction's (see TypeormUnitOfWork). */
  constructor(private readonly manager: EntityManager) {}

  async list(serverId: string): Promise<ToolPin[]> {
    return (await this.rows(`SELECT ${COLUMNS} FROM mcp_tool_pins WHERE server_id = $1 ORDER BY tool_name`, [serverId])).map(toPin);
  }

  async definitions(serverId: string): Promise<PinnedDefinition[]> {
    const rows = await databaseCall<{ tool_name: string; sha256: string; definition_text: string }[]>(
      this.manager.query(
        `SELECT tool_name, sha256, definition_text FROM mcp_tool_pins
         WHERE server_id = $1 AND status = 'approved' AND definition_text IS NOT NULL ORDER BY tool_name`,
        [serverId],
      ),
    );
    return rows.map((row) => ({ tool: row.tool_name, sha256: row.sha256, text: row.definition_text }));
  }

  async pinFirst(serverId: string, served: readonly ServedDefinition[], max: number): Promise<void> {
    if (served.length === 0) return;
    try {
      await databaseCall(
        this.manager.transaction(async (manager) => {
          // Serialises first sights per server, so two replicas cannot both fill the last free places.
          await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`mcp_tool_pins:${serverId}`]);
          await manager.query(
            `
          INSERT INTO mcp_tool_pins (server_id, tool_name, sha256, seen_sha256, status, definition_text)
          SELECT $1, fresh.name, fresh.sha256, fresh.sha256, 'approved', fresh.text
          FROM (
            SELECT t.name, t.sha256, t.text, row_number() OVER () AS n
            FROM unnest($2::text[], $3::text[], $5::text[]) AS t(name, sha256, text)
            WHERE NOT EXISTS (SELECT 1 FROM mcp_tool_pins p WHERE p.server_id = $1 AND p.tool_name = t.name)
          ) fresh
          WHERE fresh.n <= $4 - (SELECT count(*) FROM mcp_tool_pins WHERE server_id = $1)
          ON CONFLICT (server_id, tool_name) DO NOTHING`,
            [serverId, ...columns(served), max, served.map((s) => s.text ?? null)],
          );
        }),
      );
    } catch (error) {
      // The record was deleted meanwhile: its pins would go with it anyway.
      if ((error as { driverError?: { code?: string } }).driverError?.code !== '23503') throw error;
    }
  }

  async markChanged(serverId: string, served: readonly ServedDefinition[]): Promise<ToolPin[]> {
    if (served.length === 0) return [];
    const rows = await this.rows(
      `
      UPDATE mcp_tool_pins p SET status = 'changed', seen_sha256 = t.sha256, seen_at = now()
      FROM ${SERVED}
      WHERE p.server_id = $1 AND p.tool_name = t.name AND p.sha256 <> t.sha256
        AND (p.status = 'approved' OR p.seen_sha256 <> t.sha256)
      RETURNING ${RETURNED}`,
      [serverId, ...columns(served)],
    );
    return rows.map(toPin);
  }

  async restore(serverId: string, served: readonly ServedDefinition[]): Promise<void> {
    if (served.length === 0) return;
    await this.rows(
      `
      UPDATE mcp_tool_pins p SET status = 'approved', seen_sha256 = p.sha256, seen_at = now()
      FROM ${SERVED}
      WHERE p.server_id = $1 AND p.tool_name = t.name AND p.status = 'changed' AND p.sha256 = t.sha256`,
      [serverId, ...columns(served)],
    );
  }

  async describe(serverId: string, served: readonly ServedDefinition[]): Promise<void> {
    const described = served.filter((s) => s.text !== undefined);
    if (described.length === 0) return;
    // The approved sha256 sits in the WHERE: a text is kept only for the definition approved as the row now stands.
    await this.rows(
      `
      UPDATE mcp_tool_pins p SET definition_text = t.text
      FROM unnest($2::text[], $3::text[], $4::text[]) AS t(name, sha256, text)
      WHERE p.server_id = $1 AND p.tool_name = t.name AND p.sha256 = t.sha256 AND p.definition_text IS NULL`,
      [serverId, ...columns(described), described.map((s) => s.text)],
    );
  }

  async forgetTexts(serverId: string, tools: readonly string[]): Promise<void> {
    if (tools.length === 0) return;
    await this.rows(
      `UPDATE mcp_tool_pins SET definition_text = NULL
       WHERE server_id = $1 AND tool_name = ANY($2::text[]) AND definition_text IS NOT NULL`,
      [serverId, tools],
    );
  }

  async approve(serverId: string, approvals: readonly PinApproval[]): Promise<ToolPin[]> {
    const tools = approvals.map((a) => a.tool);
    // The expected hash sits in the WHERE: a replica that noted another definition first holds the row, and PostgreSQL checks the row again after it.
    await this.rows(
      `
      UPDATE mcp_tool_pins p SET sha256 = p.seen_sha256, status = 'approved', approved_at = now(), definition_text = NULL
      FROM unnest($2::text[], $3::text[]) AS t(name, expected)
      WHERE p.server_id = $1 AND p.tool_name = t.name AND p.status = 'changed'
        AND (t.expected IS NULL OR p.seen_sha256 = t.expected)`,
      [serverId, tools, approvals.map((a) => a.sha256)],
    );
    const rows = await this.rows(
      `SELECT ${COLUMNS} FROM mcp_tool_pins WHERE server_id = $1 AND tool_name = ANY($2::text[]) ORDER BY tool_name`,
      [serverId, tools],
    );
    return rows.map(toPin);
  }

  private async rows(sql: string, params: unknown[]): Promise<PinRow[]> {
    const result: unknown = await databaseCall(this.manager.query(sql, params));
    // UPDATE ... RETURNING comes back as [rows, count].
    return (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as PinRow[];
  }
}

function columns(served: readonly ServedDefinition[]): [string[], string[]] {
  return [served.map((s) => s.tool), served.map((s) => s.sha256)];
}

function toPin(row: PinRow): ToolPin {
  return { tool: row.tool_name, sha256: row.sha256, seenSha256: row.seen_sha256, status: row.status, described: row.described };
}
