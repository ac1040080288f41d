import { z } from '../zod';
import { isoDateTime } from '../common';

/** The browser session: an HttpOnly cookie holding the login token, and a readable one for CSRF. */
export const SESSION_COOKIE = 'bulwark_session';

export const CSRF_COOKIE = 'bulwark_csrf';

/** Unsafe methods authenticated by the session cookie carry the CSRF cookie's value in this header. */
export const CSRF_HEADER = 'X-CSRF-Token';

export const sessionResponse = z
  .object({
    expires_at: isoDateTime,
    need_password_change: z.boolean(),
    csrf_token: z
      .string()
      .openapi({ description: `The value of the ${CSRF_COOKIE} cookie, to send in ${CSRF_HEADER}` }),
  })
  .openapi('Session');

/**
 * Marks a single sign-on started by the console (GET /api/v1/auth/session/sso): its callback then ends
 * in the session cookie and a redirect to the console instead of the login JSON.
 */
export const SSO_BROWSER_COOKIE = 'bulwark_sso';

export const signedOutResponse = z.object({ signed_out: z.literal(true) }).openapi('SignedOut');
