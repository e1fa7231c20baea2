// Authenticators combined: `any_of` (the first that accepts lets the caller in) and `all_of` (every one must accept).
import {
  context_middleware,
  route_options_of,
  with_route_options,
  type Ctx,
  type CtxMiddleware,
  type Next,
} from '../../compose.js'
import { Identity } from '../../identity.js'
import { is_thenable } from '../../maybe-promise.js'
import { doc_of, documented, type MiddlewareDoc, type SecurityScheme } from '../../openapi/middleware-doc.js'
import { quote } from '../../options.js'
import { Response } from '../../response.js'
import { ERR_AUTH_BAD_COMBINATION } from './errors.js'

/** The authenticators given, checked: at least one, each context middleware (not yet through `adapt_ctx`). */
function checked(owner: string, list: readonly unknown[]): CtxMiddleware[] {
  if (list.length === 0) throw ERR_AUTH_BAD_COMBINATION(owner, 'give at least one authenticator; got none')
  list.forEach((mw, i) => {
    if (typeof mw !== 'function')
      throw ERR_AUTH_BAD_COMBINATION(owner, `authenticator ${i + 1} must be context middleware; got ${quote(mw)}`)
    // App middleware takes (req, res, next): its adapted form cannot be run on a trial response.
    if (mw.length > 2)
      throw ERR_AUTH_BAD_COMBINATION(owner, `authenticator ${i + 1} is App middleware; pass it before adapt_ctx`)
  })
  return list as CtxMiddleware[]
}

/** A refusal kept while the other authenticators are tried: its answer, and whether a credential was there. */
interface Refusal {
  readonly answer: Response
  readonly missing: boolean
}

/** The code of an error answer (`{ok:false, error}`), if the body is one. */
function code_of(res: Response): string | undefined {
  try {
    const body = JSON.parse(res.body_text()) as { error?: unknown }
    return typeof body.error === 'string' ? body.error : undefined
  } catch {
    return undefined
  }
}

/** Copies the headers an authenticator set on its trial response to the real one, and clears them from the trial. */
function forward(trial: Response, res: Response): void {
  for (const [name, value] of Object.entries(trial.headers()))
    for (const v of Array.isArray(value) ? value : [value]) res.header(name, v)
  trial.reset()
}

/**
 * Runs one authenticator on a trial response: its refusal stays there (so the next one can be tried), and once it
 * accepts, the headers it set move to the real response and the chain goes on. Gives the refusal, or undefined when it
 * accepted.
 */
async function attempt(mw: CtxMiddleware, missing: string | undefined, ctx: Ctx, next: Next): Promise<Refusal | void> {
  const trial = new Response()
  let accepted = false
  await mw({ req: ctx.req, res: trial, services: ctx.services }, () => {
    accepted = true
    forward(trial, ctx.res)
    return next()
  })
  if (accepted) return forward(trial, ctx.res)
  const code = code_of(trial)
  return { answer: trial, missing: code !== undefined && (code === missing || code.startsWith('missing_')) }
}

/**
 * A 401 must carry `WWW-Authenticate` (RFC 9110 15.5.2). When no credential came, every refusal is a "missing" one, and
 * the answer names the challenge of each alternative (an API key's is `ApiKey header="x-api-key"`, a JWT's `Bearer`), in
 * the authenticators' order, each once, as one list.
 */
function challenge_all(res: Response, refusals: readonly Refusal[]): void {
  if (res.status_code !== 401) return
  const list: string[] = []
  for (const { answer } of refusals) {
    const c = answer.status_code === 401 ? answer.get_header('www-authenticate') : undefined
    if (c !== undefined && c !== '' && !list.includes(c)) list.push(c)
  }
  if (list.length > 0) res.header('WWW-Authenticate', list.join(', '))
}

/** The docs of the authenticators; one without any counts as a scheme-less requirement. */
function docs_of(mws: readonly CtxMiddleware[]): MiddlewareDoc[] {
  return mws.map((mw) => doc_of(mw) ?? {})
}

/** The requirement alternatives of one authenticator (each a list of scheme names that hold together). */
function alternatives(doc: MiddlewareDoc): string[][] {
  const sec = doc.security
  if (sec === undefined) return [[]]
  const lists = (sec.requirements ?? Object.keys(sec.schemes).map((n) => [n])).map((l) => [...l])
  return sec.optional ? [...lists, []] : lists
}

/** What a combination tells the OpenAPI document: every scheme, the requirements, every error answer. */
function combined_doc(docs: readonly MiddlewareDoc[], requirements: string[][], optional: boolean): MiddlewareDoc {
  const schemes: Record<string, SecurityScheme> = {}
  const responses: Record<number, string[]> = {}
  for (const d of docs) {
    Object.assign(schemes, d.security?.schemes)
    for (const [status, codes] of Object.entries(d.responses ?? {})) {
      const list = (responses[Number(status)] ??= [])
      for (const c of codes) if (!list.includes(c)) list.push(c)
    }
  }
  const unique = requirements.filter((r, i) => requirements.findIndex((o) => o.join() === r.join()) === i)
  const required = unique.filter((r) => r.length > 0)
  const doc: MiddlewareDoc = { responses }
  return required.length === 0 ? doc : { ...doc, security: { schemes, optional, requirements: required } }
}

/** The route options a combination carries: it authenticates, and the secret query parameters of every part. */
function combined_options(name: string, mws: readonly CtxMiddleware[]) {
  const secret_query = mws.flatMap((mw) => route_options_of(mw)?.secret_query ?? [])
  return secret_query.length === 0 ? { authenticates: name } : { authenticates: name, secret_query }
}

/**
 * Lets the caller in when any one of the authenticators accepts, tried in order: the first that accepts sets the
 * request's state (`Identity`, `ApiKey`, `JwtClaims`...) and the chain goes on. When none accepts, the answer is a
 * refusal of a credential that was there but bad, the first such, else the first authenticator's refusal (its 401 and
 * code, with the challenges of every alternative: a 401 needs one). What a refused authenticator stored goes with its
 * refusal. In OpenAPI each authenticator is an alternative (several security requirement objects). No authenticator,
 * or one that is not context middleware, throws `FW_ERR_AUTH_BAD_COMBINATION` at startup.
 * @example
 * const caller = auth.any_of(auth.api_key({ allowed_keys: [key] }), auth.jwt({ secret }))
 * app.use('/reports', adapt_ctx(caller))
 * app.get('/reports', (req, res) => res.json('who', req.state(auth.Identity)!.id))
 */
export function any_of(...authenticators: CtxMiddleware[]): CtxMiddleware {
  const mws = checked('any_of', authenticators)
  const docs = docs_of(mws)
  const missing = docs.map((d) => d.security?.missing)
  const mw = async function any_of(ctx: Ctx, next: Next): Promise<void> {
    const saved = ctx.req.save_state()
    const refusals: Refusal[] = []
    for (let i = 0; i < mws.length; i++) {
      const refusal = await attempt(mws[i]!, missing[i], ctx, next)
      if (refusal === undefined) return
      // What the refused authenticator stored (an Identity, its claims) goes with its refusal: an alternative that lets
      // the caller in after it must not find it.
      ctx.req.restore_state(saved)
      refusals.push(refusal)
    }
    const chosen = refusals.find((r) => !r.missing) ?? refusals[0]!
    ctx.res.adopt(chosen.answer)
    if (chosen.missing) challenge_all(ctx.res, refusals)
  }
  const doc = combined_doc(
    docs,
    docs.flatMap(alternatives),
    docs.some((d) => d.security?.optional === true),
  )
  return context_middleware(documented(with_route_options(mw, combined_options('any_of', mws)), doc), 'any_of')
}

/**
 * Lets the caller in only when every authenticator accepts, run in order; the first refusal is the answer, and leaves
 * the request's state as it came (no `Identity` of those that accepted before it). The `Identity` kept is the first
 * authenticator's (each one's own state, `ApiKey` or `JwtClaims`, stays too). In OpenAPI the schemes hold together (one
 * requirement object naming them all). No authenticator, or one that is not context middleware, throws
 * `FW_ERR_AUTH_BAD_COMBINATION` at startup.
 * @example
 * // A partner service's key, and the user it acts for.
 * app.use('/partner', adapt_ctx(auth.all_of(auth.jwt({ secret }), auth.api_key({ allowed_keys: [key] }))))
 */
export function all_of(...authenticators: CtxMiddleware[]): CtxMiddleware {
  const mws = checked('all_of', authenticators)
  const docs = docs_of(mws)
  const mw = function all_of(ctx: Ctx, next: Next): void | Promise<void> {
    let first: Identity | undefined
    let passed = false
    const saved = ctx.req.save_state()
    const step = (i: number): void | Promise<void> => {
      if (i === mws.length) {
        passed = true
        if (first !== undefined) ctx.req.set_state(Identity, first)
        return next()
      }
      return mws[i]!(ctx, () => {
        if (i === 0) first = ctx.req.state(Identity)
        return Promise.resolve(step(i + 1))
      })
    }
    // A refusal by any of them leaves the state as it came: the Identity of those that accepted before it goes too.
    const undo = (): void => {
      if (!passed) ctx.req.restore_state(saved)
    }
    const ran = step(0)
    // An authenticator of the app's may answer any thenable (a promise library's, a lazy builder's): waited for too.
    if (is_thenable(ran)) return Promise.resolve(ran).then(undo)
    undo()
  }
  // Every combination of the parts' alternatives, each merged into one requirement.
  const requirements = docs
    .map(alternatives)
    .reduce<string[][]>((acc, alts) => acc.flatMap((a) => alts.map((b) => [...a, ...b])), [[]])
  const doc = combined_doc(
    docs,
    requirements,
    docs.every((d) => d.security?.optional === true),
  )
  return context_middleware(documented(with_route_options(mw, combined_options('all_of', mws)), doc), 'all_of')
}
