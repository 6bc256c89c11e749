/**
 * Kafka's authorization error names (Errors.java: TOPIC_AUTHORIZATION_FAILED 29, GROUP_AUTHORIZATION_FAILED 30,
 * CLUSTER_AUTHORIZATION_FAILED 31, TRANSACTIONAL_ID_AUTHORIZATION_FAILED 53, DELEGATION_TOKEN_AUTHORIZATION_FAILED 65)
 * as lib/kafka spells them in its errors.
 */
const authorizationError = /\b([A-Z_]+_AUTHORIZATION_FAILED)\b/;

/** The authorization error an error text carries (e.g. `TOPIC_AUTHORIZATION_FAILED`), or null when it is another failure. */
export function findAuthorizationError(error: string): string | null {
  return authorizationError.exec(error)?.[1] ?? null;
}
