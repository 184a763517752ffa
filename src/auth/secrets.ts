import { createHash } from 'node:crypto';
import type { Config } from '../config';

/** The cursor signing secret: CURSOR_SECRET, else one derived from the console token. */
export function cursorSecret(config: Pick<Config, 'CURSOR_SECRET'> & { CONSOLE_TOKEN: string }): string {
  return config.CURSOR_SECRET ?? createHash('sha256').update(`cursor-secret:${config.CONSOLE_TOKEN}`).digest('hex');
}
