import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/**
 * Who listens on a TCP port, read from /proc (present on every Linux, unlike `ss` or
 * `lsof`): the socket's inode from /proc/net/tcp{,6}, then the process with a descriptor on
 * it. Only this user's processes can be looked into (root sees all); null when none matched.
 */
export interface PortHolder {
  pid: number;
  command: string;
}

const LISTEN = '0A';

function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== LISTEN) continue;
      const localPort = Number.parseInt(fields[1]!.split(':').pop()!, 16);
      if (localPort === port && fields[9] !== '0') inodes.add(fields[9]!);
    }
  }
  return inodes;
}

function commandOf(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    const command = argv || readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return command.length > 120 ? `${command.slice(0, 117)}...` : command;
  } catch {
    return '?';
  }
}

export function portHolder(port: number): PortHolder | null {
  const sockets = new Set([...listeningInodes(port)].map((inode) => `socket:[${inode}]`));
  if (sockets.size === 0) return null;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // another user's process, or gone
    }
    for (const fd of fds) {
      try {
        if (sockets.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return { pid: Number(pid), command: commandOf(Number(pid)) };
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}
