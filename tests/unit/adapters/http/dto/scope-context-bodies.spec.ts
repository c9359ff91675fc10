import { AgentRoleInputDto, AgentRoleUpdateDto } from '../../../../../src/adapters/http/dto/agent-role.dto';
import { allowedFields } from '../../../../../src/adapters/http/dto/body-fields';
import { StartModeSessionDto } from '../../../../../src/adapters/http/dto/mode-session.dto';
import { ModeToolConfigInputDto, ModeToolConfigUpdateDto } from '../../../../../src/adapters/http/dto/mode-tool-config.dto';
import { ToolSetRequestDto } from '../../../../../src/adapters/http/dto/tool-set.dto';
import { ValidationError } from '../../../../../src/domain/errors';

function errorsOf(run: () => unknown): { field: string; message: string }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors.map(({ field, message }) => ({ field, message }));
    throw error;
  }
  throw new Error('no ValidationError');
}

describe("the scope context DTOs check the wire shape at the edge, with the use-cases' wording", () => {
  it("require an agent role's name and platform_scopes at create, null scopes too, and bound the texts", () => {
    expect(errorsOf(() => allowedFields(AgentRoleInputDto, { description: 3, platform_scopes: null }))).toEqual([
      { field: 'name', message: 'is required and must be a string' },
      { field: 'description', message: 'must be a string' },
      { field: 'platform_scopes', message: 'is required: an array of scopes ([] means full access)' },
    ]);
    expect(
      errorsOf(() =>
        allowedFields(AgentRoleInputDto, { name: 'n'.repeat(101), description: 'd'.repeat(2001), platform_scopes: 'chat:read' }),
      ),
    ).toEqual([
      { field: 'name', message: 'must be at most 100 characters' },
      { field: 'description', message: 'must be at most 2000 characters' },
      { field: 'platform_scopes', message: 'must be an array of scope strings' },
    ]);
    expect(allowedFields(AgentRoleInputDto, { name: 'r', description: null, platform_scopes: [] })).toMatchObject({ description: null });
  });

  it('take any one field in a PATCH, but not a null one where create would refuse it', () => {
    expect(allowedFields(AgentRoleUpdateDto, { description: 'only' })).toMatchObject({ description: 'only' });
    expect(errorsOf(() => allowedFields(AgentRoleUpdateDto, { platform_scopes: null }))).toEqual([
      { field: 'platform_scopes', message: 'is required: an array of scopes ([] means full access)' },
    ]);
    expect(allowedFields(ModeToolConfigUpdateDto, { mode: 'review' })).toMatchObject({ mode: 'review' });
    expect(errorsOf(() => allowedFields(ModeToolConfigUpdateDto, { additional_scopes: [] }))).toEqual([
      { field: 'additional_scopes', message: 'must list at least one scope (an empty array would mean full access)' },
    ]);
  });

  it("require a mode tool config's mode and at least one additional scope", () => {
    expect(errorsOf(() => allowedFields(ModeToolConfigInputDto, { mode: 'm'.repeat(65) }))).toEqual([
      { field: 'mode', message: 'must be at most 64 characters' },
      { field: 'additional_scopes', message: 'must list at least one scope (an empty array would mean full access)' },
    ]);
  });

  it('require a UUID agent_role_id to start a session or build a tool set; mode_session_id may be null', () => {
    expect(errorsOf(() => allowedFields(StartModeSessionDto, { agent_role_id: 'r1', mode: 5 }))).toEqual([
      { field: 'agent_role_id', message: 'must be a UUID' },
      { field: 'mode', message: 'is required and must be a string' },
    ]);
    const role = '0b5f3c1e-8d2a-4f6b-9c7d-1e2f3a4b5c6d';
    expect(allowedFields(ToolSetRequestDto, { agent_role_id: role, mode_session_id: null })).toMatchObject({ agent_role_id: role });
    expect(errorsOf(() => allowedFields(ToolSetRequestDto, { agent_role_id: role, mode_session_id: 'x' }))).toEqual([
      { field: 'mode_session_id', message: 'must be a UUID' },
    ]);
  });
});
