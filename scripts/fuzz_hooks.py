"""Schemathesis hooks for scripts/fuzz.sh: every request carries the next token of the file
FUZZ_TOKENS_FILE names (API keys, or the console token), round robin, so no single key's
rate limit (120 requests a minute) decides what the fuzzer sees."""

import itertools
import os
import threading

import schemathesis

with open(os.environ["FUZZ_TOKENS_FILE"], encoding="utf-8") as tokens_file:
    _TOKENS = itertools.cycle([line.strip() for line in tokens_file if line.strip()])
_LOCK = threading.Lock()


@schemathesis.auth(refresh_interval=None)
class RotatingBearer:
    def get(self, case, ctx):
        with _LOCK:
            return next(_TOKENS)

    def set(self, case, data, ctx):
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"
