import { MIN_DESTINATION_DIGITS, searchedNumber } from '../../../src/calls/destination';

/**
 * What an operator typed in a console search box: a phone number (only digits and the
 * separators a pasted number carries, at least as many digits as a callable number has),
 * read as POST /api/v1/calls reads a `to` in the workspace's country; anything else is
 * a name, or part of one.
 */
export type SearchText = { kind: 'number'; e164: string } | { kind: 'name'; name: string };

const NUMBER_LIKE = /^\+?[\d\s().-]+$/;

export function readSearchText(typed: string, workspaceCountry: string): SearchText {
  const text = typed.trim();
  const digits = text.replace(/\D/g, '');
  if (NUMBER_LIKE.test(text) && digits.length >= MIN_DESTINATION_DIGITS) return { kind: 'number', e164: searchedNumber(text, workspaceCountry) };
  return { kind: 'name', name: text };
}
