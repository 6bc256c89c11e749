import { GapwatchError, errorCodes } from "@/lib/errors";

/** No valid admin session (missing, expired or forged cookie): answered 401. */
export class UnauthorizedError extends GapwatchError {
  constructor(message = "sign in as admin first (POST /api/session with the admin secret)") {
    super(errorCodes.unauthorized, message);
  }
}

/**
 * The request may not do this: a cross-site request (Origin/Referer not this host), a body that
 * is not JSON, or admin actions disabled because no admin secret is configured. Answered 403.
 */
export class ForbiddenError extends GapwatchError {
  constructor(message: string) {
    super(errorCodes.forbidden, message);
  }
}
