import { dirname } from 'node:path';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

type History = proto.temporal.api.history.v1.IHistory;

/**
 * A stored JSON history (the Temporal CLI's `workflow show --output json`) as the History
 * object the replayer takes. The SDK's own `historyFromJSON` cannot be used with this install:
 * @temporalio/common and @temporalio/proto each carry their own copy of protobufjs, and the
 * JSON reader of one refuses the other's types ("type must be a Type"). This uses the copy
 * that @temporalio/proto's types come from, wherever npm placed it.
 */
export function historyFromStoredJson(json: unknown): History {
  const protobufjsOfProto = require.resolve('protobufjs/ext/protojson', { paths: [dirname(require.resolve('@temporalio/proto'))] });
  const { fromJson } = require(protobufjsOfProto) as { fromJson: (type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }) => History | null };
  const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType('temporal.api.history.v1.History');
  const history = fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history?.events?.length) throw new TypeError('not a workflow history');
  return history;
}
