import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/**
 * One clock for the whole console: every time is shown in the workspace's zone (its IANA
 * name), named once per page by the shell ("Times in Asia/Kolkata"), never the browser's
 * zone beside it. The formatting is in format.ts (no Preact, so unit tests import it).
 */

/** The zone the pages format in: the chosen workspace's (App.tsx provides it); UTC until it is known. */
export const WorkspaceZone = createContext('UTC');

export const useWorkspaceZone = (): string => useContext(WorkspaceZone);

export { formatCalendarDate, formatInZone, formatShortInZone, wallTimeInZone, wallTimeText } from './format';
