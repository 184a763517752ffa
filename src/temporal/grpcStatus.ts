import { isGrpcServiceError, ServiceError } from '@temporalio/client';

/** gRPC's FAILED_PRECONDITION status code (@grpc/grpc-js is not a direct dependency). */
const FAILED_PRECONDITION = 9;

/**
 * Whether Temporal answered FAILED_PRECONDITION, directly or wrapped in the client's
 * `ServiceError`: the request met the workflow in a state that will pass (an update dropped
 * with the workflow task it reached, a query to a workflow whose task is failing: "not ready").
 */
export function isFailedPrecondition(err: unknown): boolean {
  const cause = err instanceof ServiceError ? err.cause : err;
  return isGrpcServiceError(cause) && cause.code === FAILED_PRECONDITION;
}
