// What the reference authentication API answers with when it refuses a request.
import { httpCode } from '../../lib/errors.js'

/**
 * 401 error text of the spec's guide (`{ok:false, error:'unauthorized'}`): no bearer token, or one that is unknown or
 * expired.
 */
export const UNAUTHORIZED = httpCode('unauthorized')

/** 403 error text of the spec's guide (`{ok:false, error:'admin role required'}`): the user is not an admin. */
export const ADMIN_ROLE_REQUIRED = httpCode('admin role required')

/** 409 code on register: the email (trimmed, lowercased) belongs to a user already. */
export const EMAIL_TAKEN = httpCode('email_taken')

/** 401 code on login: no user with that email, or a wrong password (the answer never says which). */
export const INVALID_CREDENTIALS = httpCode('invalid_credentials')
