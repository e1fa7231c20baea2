// The HTTP token grammar, apart from the Response so that option checkers can use it without loading the Response.

/** An HTTP token (RFC 9110): what a header, method or cookie name may be. */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
