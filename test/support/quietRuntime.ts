import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers in tests log only warnings and errors, so a failing test's output stays readable.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed for this worker process by an earlier test file.
}
