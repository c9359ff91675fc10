import { ToolDescriptor } from '../../src/domain/tool';

/** Tool descriptors for filtering tests: only the name and the scopes it needs matter. */
export const ToolMother = {
  needing(name: string, ...requiredScopes: string[]): ToolDescriptor {
    return { name, description: `${name} (test tool)`, inputSchema: { type: 'object' }, requiredScopes };
  },
  /** A tool anyone may see. */
  open(name: string): ToolDescriptor {
    return ToolMother.needing(name);
  },
};
