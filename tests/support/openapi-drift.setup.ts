import { checkFetchedResponses, takeViolations } from './openapi-drift';

/** setupFilesAfterEnv of the integration and e2e projects: a test that received an answer the OpenAPI document does not describe fails. */
checkFetchedResponses();

function failOnDrift(): void {
  const found = takeViolations();
  if (found.length > 0) {
    throw new Error(`Answers the OpenAPI document (src/adapters/http/openapi) does not describe:\n  ${found.join('\n  ')}`);
  }
}

afterEach(failOnDrift);
afterAll(failOnDrift);
