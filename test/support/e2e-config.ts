/**
 * The head most end-to-end configs share: the API under the bearer token of `API_TOKEN`, and an engine with a short
 * lease and poll, so that a killed process's runs are taken over within seconds. `secrets` are declared beside
 * `api_token` (`hook: { env: HOOK_SECRET }`); `storage` is a `storage:` section (test/support/stores.ts), or none for
 * the embedded SQLite file.
 */
export function e2eConfigHead(secrets: readonly string[] = [], storage = ''): string {
  return `chainflow_version: 1
${storage}secrets:
${[...secrets, 'api_token: { env: API_TOKEN }'].map((line) => `  ${line}\n`).join('')}server:
  auth:
    token: { secret: api_token }
engine:
  lease_ttl: 3s
  poll_interval: 1s
`;
}
