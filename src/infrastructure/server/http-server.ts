import http from 'node:http';
import { OperationsConfig } from '../config/config';

/**
 * The HTTP server with its header limit: a request line plus headers over
 * MAX_HEADER_BYTES is answered 431 by Node before any handler runs. Bodies are
 * limited where they are parsed.
 */
export function createHttpServer(ops: Pick<OperationsConfig, 'maxHeaderBytes'>): http.Server {
  return http.createServer({ maxHeaderSize: ops.maxHeaderBytes });
}
