import { jsonBytes } from '../../application/use-cases/gateway/built-in/data-limits';
import { ToolPin } from '../../domain/tool';

/**
 * A server record's view (see recordView) with its pins in `data.tool_pins`
 * (name → approved sha256, status, and the seen sha256 while changed),
 * within `budget` bytes of JSON. When all pins do not fit, the record keeps
 * its own data and shows the changed pins first (what awaits the owner),
 * then approved ones, each by name, as many as fit, with
 * `tool_pins_truncated: true` and `tool_pins_total`. Null when not even the
 * record's own data fits beside an empty map.
 */
export function withToolPins(shown: Record<string, unknown>, pins: readonly ToolPin[], budget: number): Record<string, unknown> | null {
  const data = shown.data as Record<string, unknown>;
  const full = { ...shown, data: { ...data, tool_pins: Object.fromEntries(pins.map((pin) => [pin.tool, pinView(pin)])) } };
  if (jsonBytes(full) <= budget) return full;
  const marks = { tool_pins_truncated: true, tool_pins_total: pins.length };
  let bytes = jsonBytes({ ...shown, data: { ...data, tool_pins: {}, ...marks } });
  if (bytes > budget) return null;
  const kept: [string, Record<string, unknown>][] = [];
  for (const pin of [...pins.filter(isChanged), ...pins.filter((pin) => !isChanged(pin))]) {
    const view = pinView(pin);
    // "name":{...} and, after the first, a comma.
    const more = jsonBytes(pin.tool) + 1 + jsonBytes(view) + (kept.length > 0 ? 1 : 0);
    if (bytes + more > budget) break;
    bytes += more;
    kept.push([pin.tool, view]);
  }
  // fromEntries, not assignment: a tool named __proto__ is a key like any other.
  return { ...shown, data: { ...data, tool_pins: Object.fromEntries(kept), ...marks } };
}

function isChanged(pin: ToolPin): boolean {
  return pin.status === 'changed';
}

/** One pin as its owner sees it: the approved sha256, the status and, while changed, the sha256 now served. */
export function pinView(pin: ToolPin): { sha256: string; status: ToolPin['status']; seen_sha256?: string } {
  return isChanged(pin)
    ? { sha256: pin.sha256, status: pin.status, seen_sha256: pin.seenSha256 }
    : { sha256: pin.sha256, status: pin.status };
}
