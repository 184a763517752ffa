import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../src/local/paths';

/** 20 ms of 8 kHz mu-law: one Twilio media frame. */
export const FRAME_BYTES = 160;
export const MULAW_SILENCE = 0xff;

/**
 * Real speech for the media tests: espeak-ng says `text`, sox resamples it to 8 kHz mu-law
 * (raw, as Twilio's media frames carry it). Made at test time (scripts/ensure-audio.sh
 * installs both) and kept under .test-data/audio, named by what was said, so a run makes
 * each sentence once.
 */
export function speechMulaw(text: string, voice = 'en-us'): Buffer {
  const dir = fromRoot('.test-data/audio');
  mkdirSync(dir, { recursive: true });
  const name = createHash('sha256').update(`${voice}\n${text}`).digest('hex').slice(0, 16);
  const out = join(dir, `${name}.ulaw`);
  if (!existsSync(out)) {
    const wav = join(dir, `${name}.${process.pid}.wav`);
    const partial = join(dir, `${name}.${process.pid}.ulaw`);
    try {
      execFileSync('espeak-ng', ['-v', voice, '-s', '165', '-w', wav, text]);
      execFileSync('sox', [wav, '-r', '8000', '-c', '1', '-t', 'raw', '-e', 'mu-law', '-b', '8', partial]);
      renameSync(partial, out);
    } finally {
      rmSync(wav, { force: true });
      rmSync(partial, { force: true });
    }
  }
  return readFileSync(out);
}

/** ITU-T G.711 mu-law to a linear 16-bit sample. */
export function mulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
  return sign ? -magnitude : magnitude;
}

/** Root-mean-square level of a stretch of mu-law audio (0 for digital silence). */
export function mulawRms(audio: Uint8Array): number {
  if (audio.length === 0) return 0;
  let sum = 0;
  for (const byte of audio) {
    const s = mulawToLinear(byte);
    sum += s * s;
  }
  return Math.sqrt(sum / audio.length);
}
