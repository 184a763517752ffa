import { TestWorkflowEnvironment } from '@temporalio/testing';
import { toolPath } from '../../src/local/paths';
import { testServers } from './env';

/**
 * The SDK's time-skipping environment on Temporal's Java test server, launched from the
 * wrapper that scripts/setup-tools.sh builds (any other choice would download and fail).
 */
export function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: toolPath(testServers.toolsDir(), 'temporal-test-server') } },
  });
}
