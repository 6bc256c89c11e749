/** What the sandbox's OIDC issuer (oidc-issuer-server.ts) is started with. */
export interface OidcIssuerSettings {
  port: number;
  /** The `aud` claim of every token (the broker's sasl.oauthbearer.expected.audience). */
  audience: string;
  /** Lifetime of each token (exp − iat). */
  lifetimeSeconds: number;
  /** Client id → client secret. */
  clients: Record<string, string>;
  /** Clients whose tokens are signed with a second key the JWKS does not publish (a broker must refuse them). */
  unpublishedKeyClients?: string[];
}
