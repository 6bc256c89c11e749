import { generateAuthToken, generateAuthTokenFromProfile, generateAuthTokenFromRole } from "aws-msk-iam-sasl-signer-js";
import type { KafkaMskIamSasl } from "../types";
import type { FetchedToken } from "./token-refresh";

/**
 * Signs an Amazon MSK IAM token with AWS's own signer: a base64url presigned `kafka-cluster:Connect` URL for
 * `kafka.<region>.amazonaws.com`, valid 15 minutes (less when the credentials expire sooner). Credentials come from
 * `roleArn` (assumed through STS), `profile`, or AWS's default chain (environment, web identity token file as set by
 * EKS IRSA, shared profile, container and instance roles). Failures say which region and source failed.
 */
export async function generateMskIamToken(settings: KafkaMskIamSasl): Promise<FetchedToken> {
  const region = settings.region;
  const source =
    settings.roleArn !== undefined ? `role ${settings.roleArn}`
    : settings.profile !== undefined ? `profile ${settings.profile}`
    : "the default credential chain";
  try {
    const signed =
      settings.roleArn !== undefined
        ? await generateAuthTokenFromRole({ region, awsRoleArn: settings.roleArn, awsRoleSessionName: settings.roleSessionName })
        : settings.profile !== undefined
          ? await generateAuthTokenFromProfile({ region, awsProfileName: settings.profile })
          : await generateAuthToken({ region });
    return { token: signed.token, expiresAtMs: signed.expiryTime };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`AWS MSK IAM token for region ${region} could not be signed with AWS credentials from ${source}: ${why}`);
  }
}
