import { BUILT_IN_TOOLS } from '../../application/use-cases/gateway/built-in/built-in-tools';
import { ToolDescriptor } from '../../domain/tool';
import { toMcpTool } from './tool-presenter';

/** Tool i's bit: 2^i, so a bit is larger than the sum of all bits before it. */
const BIT = new Map<ToolDescriptor, number>(BUILT_IN_TOOLS.map((tool, i) => [tool, 2 ** i]));

/**
 * The tools array of a tools/list answer and what follows it (`closing`: the
 * 2025 answer's closing braces by default), as bytes.
 * Nearly every answer is a subset of the built-in tools, of which there are
 * only 2^n for n tools (64), so each subset's bytes are made once, whichever
 * key or agent_scopes asked; a list with external tools is serialised each time.
 */
export class ToolListBytes {
  private readonly builtIn = new Map<number, Buffer>();

  constructor(private readonly closing = '}}') {}

  of(tools: readonly ToolDescriptor[]): Buffer {
    const subset = builtInSubset(tools);
    let bytes = subset === undefined ? undefined : this.builtIn.get(subset);
    if (bytes !== undefined) return bytes;
    bytes = Buffer.from(`${JSON.stringify(tools.map(toMcpTool))}${this.closing}`);
    if (subset !== undefined) this.builtIn.set(subset, bytes);
    return bytes;
  }

  /** How many subsets have their bytes kept. */
  get size(): number {
    return this.builtIn.size;
  }
}

/**
 * The list as a set of bits when it holds built-in tools only, in catalog
 * order (as FilterTools returns them), so that the bits name one list.
 */
function builtInSubset(tools: readonly ToolDescriptor[]): number | undefined {
  let subset = 0;
  for (const tool of tools) {
    const bit = BIT.get(tool);
    if (bit === undefined || bit <= subset) return undefined;
    subset += bit;
  }
  return subset;
}
