/**
 * The promise's value, or a failure naming `what` once `ms` pass without an answer: a test of
 * a server that may stop answering (a frozen database) fails with a reason instead of hanging
 * until jest's own timeout.
 */
export async function answeredWithin<T>(what: string, promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
