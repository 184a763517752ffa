/** The error envelope the spec requires, for `toEqual`. */
export function envelope(code: string, message: string | RegExp, details: Record<string, unknown> = {}) {
  return {
    error: {
      code,
      message: message instanceof RegExp ? expect.stringMatching(message) : message,
      details,
      request_id: expect.stringMatching(/^req_[0-9a-f]{24}$/),
      correlation_id: expect.stringMatching(/^cor_/),
    },
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
