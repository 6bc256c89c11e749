import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchClientCredentialsToken, readExpiry } from "@/lib/kafka/oauth/client-credentials";
import { findFreePort } from "@/lib/sandbox/free-port";
import type { KafkaOAuthSasl } from "@/lib/kafka/types";

/** A token endpoint on loopback whose answer each test sets; it records the requests it got. */
let server: Server;
let base = "";
let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
const requests: { authorization: string | undefined; contentType: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      requests.push({ authorization: req.headers.authorization, contentType: req.headers["content-type"], body });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const jwtWithExp = (exp: number) => `${Buffer.from('{"alg":"RS256"}').toString("base64url")}.${Buffer.from(JSON.stringify({ sub: "gapwatch", exp })).toString("base64url")}.c2ln`;
const settings = (over: Partial<KafkaOAuthSasl> = {}): KafkaOAuthSasl => ({
  mechanism: "OAUTHBEARER",
  tokenEndpointUrl: `${base}/oauth2/token`,
  clientId: "gap watch",
  clientSecret: "s3cret:value",
  ...over,
});
const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

describe("fetchClientCredentialsToken", () => {
  it("posts the client credentials grant with Basic auth and scope, and takes the JWT's exp as expiry", async () => {
    const token = jwtWithExp(2_000_000);
    answer = json(200, { access_token: token, token_type: "Bearer", expires_in: 3600 });
    requests.length = 0;
    expect(await fetchClientCredentialsToken(settings({ scope: "kafka read" }), () => 1_999_000_000)).toEqual({ token, expiresAtMs: 2_000_000_000 });
    expect(requests).toEqual([
      {
        authorization: `Basic ${Buffer.from("gap watch:s3cret:value").toString("base64")}`,
        contentType: "application/x-www-form-urlencoded",
        body: "grant_type=client_credentials&scope=kafka+read",
      },
    ]);
  });

  it("URL-encodes id and secret in the header with headerUrlencode (sasl.oauthbearer.header.urlencode)", async () => {
    answer = json(200, { access_token: "opaque", expires_in: 60 });
    requests.length = 0;
    expect(await fetchClientCredentialsToken(settings({ headerUrlencode: true }), () => 5_000)).toEqual({ token: "opaque", expiresAtMs: 65_000 });
    expect(requests[0]!.authorization).toBe(`Basic ${Buffer.from("gap%20watch:s3cret%3Avalue").toString("base64")}`);
    expect(requests[0]!.body).toBe("grant_type=client_credentials");
  });

  it("says which endpoint refused the credentials and how, without the secret", async () => {
    answer = json(401, { error: "invalid_client", error_description: "bad secret s3cret:value" });
    const error = await fetchClientCredentialsToken(settings()).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      `OAUTHBEARER token endpoint ${base}/oauth2/token answered HTTP 401 (check clientId and clientSecret): invalid_client: bad secret [redacted]`,
    );
  });

  it("names a body that is not JSON, an answer without access_token, and a token without expiry", async () => {
    const messageOf = (e: unknown) => (e as Error).message;
    answer = (_req, res) => res.end("<html>gateway</html>");
    expect(messageOf(await fetchClientCredentialsToken(settings()).catch((e) => e))).toMatch(/answered HTTP 200 with a body that is not JSON: <html>gateway<\/html>$/);
    answer = json(200, { token_type: "Bearer" });
    expect(messageOf(await fetchClientCredentialsToken(settings()).catch((e) => e))).toMatch(/oauth2\/token answered without an access_token$/);
    answer = json(200, { access_token: "opaque" });
    expect(messageOf(await fetchClientCredentialsToken(settings()).catch((e) => e))).toMatch(/answered a token without an expiry \(no JWT exp claim, no expires_in\)$/);
    answer = json(500, {});
    expect(messageOf(await fetchClientCredentialsToken(settings()).catch((e) => e))).toMatch(/answered HTTP 500: \{\}$/);
  });

  it("says the endpoint is unreachable (refused) or silent past timeoutMs", async () => {
    const closed = `http://127.0.0.1:${await findFreePort()}/token`;
    const refused = await fetchClientCredentialsToken(settings({ tokenEndpointUrl: closed })).catch((e: Error) => e.message);
    expect(refused).toMatch(new RegExp(`^OAUTHBEARER token endpoint ${closed} unreachable: connect ECONNREFUSED`));
    answer = () => undefined; // never answers
    const silent = await fetchClientCredentialsToken(settings({ timeoutMs: 300 })).catch((e: Error) => e.message);
    expect(silent).toBe(`OAUTHBEARER token endpoint ${base}/oauth2/token unreachable: no answer within 300 ms`);
  });
});

describe("readExpiry", () => {
  it("takes the earlier of the JWT exp and expires_in, either alone, or null", () => {
    expect(readExpiry(jwtWithExp(100), 3600, 0)).toBe(100_000);
    expect(readExpiry(jwtWithExp(100_000), 60, 0)).toBe(60_000);
    expect(readExpiry("opaque", 60, 1000)).toBe(61_000);
    expect(readExpiry("not.a-jwt.x", undefined, 0)).toBeNull();
  });
});
