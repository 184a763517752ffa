import { UsageError } from './usageError';

/** The console CLI's parsed flags: `--name value`, or `true` for a bare `--name`. */
export type Flags = Record<string, string | boolean | undefined>;

/** A bare `--flag` (or `--flag true`) is on; `--flag false` is off. */
export function switchOn(flags: Flags, name: string): boolean | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${name} takes true or false, not ${JSON.stringify(value)}`);
}

/** Every value given to a flag that may repeat (`--answer a=1 --answer b=2`), in order, from the raw arguments. */
export function repeatedFlag(argv: string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === `--${name}` && i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) values.push(argv[++i]!);
    else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3));
  }
  return values;
}
