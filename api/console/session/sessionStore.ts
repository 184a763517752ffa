import { createHash, randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';

/** How long a console login lasts, from the moment it is made (no sliding renewal). */
export const CONSOLE_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * A console login. The browser holds the session id in an HttpOnly cookie; the database
 * holds only its SHA-256, so a copy of the collection opens no session. The CSRF token is
 * per session and only handed out to a request that already carries the cookie.
 */
export interface ConsoleSessionDoc {
  /** SHA-256 (hex) of the session id. */
  _id: string;
  csrf_token: string;
  created_at: Date;
  expires_at: Date;
}

export interface IssuedSession {
  /** The opaque id, for the cookie only; never stored. */
  id: string;
  session: ConsoleSessionDoc;
}

const hashId = (id: string) => createHash('sha256').update(id).digest('hex');

export function consoleSessions(db: Db): Collection<ConsoleSessionDoc> {
  return db.collection<ConsoleSessionDoc>('console_sessions');
}

export class ConsoleSessionStore {
  private readonly sessions: Collection<ConsoleSessionDoc>;

  constructor(
    db: Db,
    private readonly now: () => Date,
  ) {
    this.sessions = consoleSessions(db);
  }

  async create(): Promise<IssuedSession> {
    const now = this.now();
    // Expired sessions are swept here (FerretDB has no TTL indexes); a log-in is rare enough
    // for the scan, and a stale document is refused on read anyway.
    await this.sessions.deleteMany({ expires_at: { $lte: now } });
    const id = randomBytes(32).toString('base64url');
    const session: ConsoleSessionDoc = {
      _id: hashId(id),
      csrf_token: randomBytes(32).toString('base64url'),
      created_at: now,
      expires_at: new Date(now.getTime() + CONSOLE_SESSION_TTL_MS),
    };
    await this.sessions.insertOne(session);
    return { id, session };
  }

  /** The live session of a cookie value, by `_id` alone; an expired one reads as none. */
  async find(id: string): Promise<ConsoleSessionDoc | null> {
    if (!id || id.length > 128) return null;
    const session = await this.sessions.findOne({ _id: hashId(id) });
    if (!session || session.expires_at.getTime() <= this.now().getTime()) return null;
    return session;
  }

  async end(id: string): Promise<void> {
    await this.sessions.deleteOne({ _id: hashId(id) });
  }
}
