import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { Clock } from '../../application/ports/clock.port';
import { UnitOfWork } from '../../application/ports/unit-of-work.port';
import { ToolPins } from '../../application/use-cases/gateway/external/tool-pins';
import { Sha256ContentDigest } from '../../adapters/crypto/sha256-content-digest';
import { TypeormToolPinStore } from '../../adapters/persistence/typeorm-tool-pin-store';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/** Pinned upstream tool definitions: a server holds at most as many pins as one listing may name (MCP_UPSTREAM_MAX_TOOLS). */
export function bindToolPins(c: Container): void {
  c.bind(ToolPins).toResolvedValue(
    (ds: DataSource, work: UnitOfWork, clock: Clock, config: Config) =>
      new ToolPins(new TypeormToolPinStore(ds.manager), work, new Sha256ContentDigest(), clock, config.mcp.upstreamMaxTools),
    [TOKENS.DataSource, TOKENS.UnitOfWork, TOKENS.Clock, TOKENS.Config],
  );
}
