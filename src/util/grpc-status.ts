// The gRPC status codes Herald tells apart, and the gRPC error behind one the Temporal client wrapped: read by the
// API's deadline on workflow answers (src/delivery/workflow-answer.ts) and by `herald temporal` (src/cli).
import { isGrpcServiceError } from '@temporalio/client';

/** gRPC status codes (grpc's status.proto), those Herald tells apart. */
export const grpcStatus = {
  CANCELLED: 1,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  UNIMPLEMENTED: 12,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** The gRPC error behind `err`: the client wraps a failed call or connect in an error whose cause is the call's. */
export function grpcErrorOf(err: unknown): { code: number; details: string } | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1)
    if (isGrpcServiceError(e)) return e;
  return undefined;
}

export const grpcCode = (err: unknown): number | undefined => grpcErrorOf(err)?.code;
