import type { ElicitRequestFormParams } from '@modelcontextprotocol/server';

type RequestedSchema = ElicitRequestFormParams['requestedSchema'];

/** test_elicitation: one free-text answer. */
export const RESPONSE_FORM: RequestedSchema = {
  type: 'object',
  properties: { response: { type: 'string', description: "User's response" } },
  required: ['response'],
};

/** SEP-1034: a default for each primitive type (the suite checks each value). */
export const DEFAULTS_FORM: RequestedSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
  required: [],
};

const CHOICES = [
  { const: 'value1', title: 'First Option' },
  { const: 'value2', title: 'Second Option' },
  { const: 'value3', title: 'Third Option' },
];

/** SEP-1330: the five enum forms, untitled and titled, single and multiple, and the deprecated enumNames. */
export const ENUMS_FORM: RequestedSchema = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
    titledSingle: { type: 'string', description: 'Select one option with titles', oneOf: CHOICES },
    legacyEnum: {
      type: 'string',
      description: 'Select one option (legacy)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Select multiple options',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: { type: 'array', description: 'Select multiple options with titles', minItems: 1, maxItems: 3, items: { anyOf: CHOICES } },
  },
  required: [],
};
