/**
 * The sandbox's OIDC issuer, run as a child process of its own (oidc-issuer.ts starts and stops it by PID): an RSA
 * key pair made at start, `GET /jwks` (the public key, as Kafka's OAuthBearerValidatorCallbackHandler fetches it),
 * `POST /token` (client credentials grant: Basic client id and secret checked, RS256 JWT with iss, aud, sub, scope,
 * iat, exp answered; for `unpublishedKeyClients` signed with a key the JWKS does not list) and `GET /stats` (tokens
 * issued per client, for tests). One argument: the JSON of OidcIssuerSettings.
 */
import { createSign, generateKeyPairSync, type KeyObject, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { OidcIssuerSettings } from "./oidc-issuer-settings";

const settings = JSON.parse(process.argv[2] ?? "{}") as OidcIssuerSettings;
const issuer = `http://127.0.0.1:${settings.port}`;
const keyId = "gapwatch-sandbox-key-1";
const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const unpublishedKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
const jwks = { keys: [{ ...publicKey.export({ format: "jwk" }), kid: keyId, use: "sig", alg: "RS256" }] };
const issued: Record<string, number> = {};

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function signJwt(claims: Record<string, unknown>, key: KeyObject): string {
  const encode = (part: unknown) => Buffer.from(JSON.stringify(part)).toString("base64url");
  const signingInput = `${encode({ alg: "RS256", typ: "JWT", kid: keyId })}.${encode(claims)}`;
  return `${signingInput}.${createSign("RSA-SHA256").update(signingInput).sign(key).toString("base64url")}`;
}

/** The client id and secret of a Basic authorization header, or null. */
function readBasicAuth(req: IncomingMessage): { id: string; secret: string } | null {
  const match = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? null : { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function answerToken(req: IncomingMessage, body: string, res: ServerResponse): void {
  const form = new URLSearchParams(body);
  if (form.get("grant_type") !== "client_credentials") return send(res, 400, { error: "unsupported_grant_type" });
  const client = readBasicAuth(req);
  if (client === null || settings.clients[client.id] !== client.secret) {
    return send(res, 401, { error: "invalid_client", error_description: "client authentication failed" });
  }
  const now = Math.floor(Date.now() / 1000);
  const scope = form.get("scope") ?? "kafka";
  const key = settings.unpublishedKeyClients?.includes(client.id) ? unpublishedKey : privateKey;
  const exp = now + settings.lifetimeSeconds;
  const claims = { iss: issuer, aud: settings.audience, sub: client.id, scope, iat: now, nbf: now, exp, jti: randomUUID() };
  const token = signJwt(claims, key);
  issued[client.id] = (issued[client.id] ?? 0) + 1;
  process.stdout.write(`${new Date().toISOString()} issued token ${issued[client.id]} to ${client.id}, ${settings.lifetimeSeconds} s\n`);
  send(res, 200, { access_token: token, token_type: "Bearer", expires_in: settings.lifetimeSeconds, scope });
}

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
  req.on("end", () => {
    if (req.method === "GET" && req.url === "/jwks") return send(res, 200, jwks);
    if (req.method === "GET" && req.url === "/stats") return send(res, 200, { issued });
    if (req.method === "POST" && req.url === "/token") return answerToken(req, body, res);
    send(res, 404, { error: "not_found" });
  });
});
server.listen(settings.port, "127.0.0.1", () => process.stdout.write(`${new Date().toISOString()} OIDC issuer listening on ${issuer}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
