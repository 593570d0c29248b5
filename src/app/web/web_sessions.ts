import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import type { IdFactory } from '../../core/ids.js';

/** One operator logged in to the web console: the name their actions are recorded under (`web:<name>`), and the token every change they ask for must carry. */
export interface WebSession {
  readonly id: string;
  readonly name: string;
  readonly csrf: string;
  readonly expiresAt: number;
}

/** How long a login lasts. */
export const SESSION_TTL_MS = 12 * 3_600_000;

/** The longest name an operator may log in under. */
export const MAX_NAME_LENGTH = 64;

/** Letters, digits, `.`, `_` and `-`: a name that reads the same in a log line and in `web:<name>`. */
const NAME = new RegExp(`^[\\p{L}\\p{N}._-]{1,${MAX_NAME_LENGTH}}$`, 'u');

/** What became of an operator's last action, shown once on the page they land on next. */
export interface Flash {
  readonly kind: 'done' | 'refused';
  readonly text: string;
}

/** Why a login was refused. */
export type LoginRefusal = 'bad_token' | 'bad_name';

/**
 * The web console's logins (held in memory: a restart logs everyone out). The console's token
 * is checked in constant time; each session gets an id (its cookie) and a CSRF token of its own,
 * from the `ids` port, and lasts {@link SESSION_TTL_MS} by `clock`.
 *
 * @example
 * ```ts
 * const login = sessions.login('s3cret-token-0123', 'ana');
 * if (login.kind === 'session') response.setHeader('Set-Cookie', sessionCookie(login.session));
 * const session = sessions.find(cookieOf(request)); // undefined once expired or logged out
 * ```
 */
export class WebSessions {
  readonly #sessions = new Map<string, WebSession>();
  readonly #flashes = new Map<string, Flash>();

  constructor(
    private readonly token: string | undefined,
    private readonly clock: Clock,
    private readonly ids: IdFactory,
  ) {}

  /** A new session for `name`, when `token` is the console's (any, when the console has none). */
  login(token: string, name: string): { readonly kind: 'session'; readonly session: WebSession } | { readonly kind: 'refused'; readonly why: LoginRefusal } {
    if (this.token !== undefined && !sameSecret(token, this.token)) return { kind: 'refused', why: 'bad_token' };
    const trimmed = name.trim();
    if (!NAME.test(trimmed)) return { kind: 'refused', why: 'bad_name' };
    this.#forgetExpired();
    const session = { id: this.ids.newId(), name: trimmed, csrf: this.ids.newId(), expiresAt: this.clock.now() + SESSION_TTL_MS };
    this.#sessions.set(session.id, session);
    return { kind: 'session', session };
  }

  /** The live session of `id`; `undefined` when there is none, or it expired. */
  find(id: string | undefined): WebSession | undefined {
    const session = id === undefined ? undefined : this.#sessions.get(id);
    if (session === undefined || session.expiresAt > this.clock.now()) return session;
    this.#sessions.delete(session.id);
    return undefined;
  }

  logout(id: string): void {
    this.#sessions.delete(id);
    this.#flashes.delete(id);
  }

  /** Leaves `flash` for the session's next page. */
  leave(id: string, flash: Flash): void {
    this.#flashes.set(id, flash);
  }

  /** The flash left for the session, taken: the next page shows it, the one after does not. */
  take(id: string): Flash | undefined {
    const flash = this.#flashes.get(id);
    this.#flashes.delete(id);
    return flash;
  }

  #forgetExpired(): void {
    const now = this.clock.now();
    for (const [id, session] of this.#sessions) {
      if (session.expiresAt > now) continue;
      this.#sessions.delete(id);
      this.#flashes.delete(id);
    }
  }
}

/** Whether two secrets are equal, taking as long whatever their first difference. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
