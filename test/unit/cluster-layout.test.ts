// The cluster test bed's port layout (scripts/lib/cluster-layout.ts): a cluster of one's own beside `npm run cluster`
// never wants one of its ports, and a taken port of a layout is found before the server fails on it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import {
  candidateFrontends,
  clusterPortList,
  clusterPorts,
  DEFAULT_CLUSTER_PORT,
  layoutsOverlap,
  OWN_CLUSTER_RANGE,
  takenPorts,
} from '../../scripts/lib/cluster-layout.js';

describe("a cluster's ports", () => {
  it("are the frontend's documented layout (docs/temporal-cluster.md)", () => {
    assert.deepEqual(
      clusterPortList(clusterPorts(DEFAULT_CLUSTER_PORT)),
      [15432, 16933, 16934, 16935, 16939, 17233, 17234, 17235, 17239, 17243, 19090],
    );
  });

  it('overlap when two frontends are close, not when far apart', () => {
    assert.ok(layoutsOverlap(17233, 17233));
    assert.ok(layoutsOverlap(17233, 17234)); // its history port is the other's frontend
    assert.ok(layoutsOverlap(17233, 17233 + 1801 + 1857)); // one's metrics port is the other's PostgreSQL
    assert.ok(!layoutsOverlap(17233, 27233));
  });

  it("of a cluster of one's own stay clear of npm run cluster's and of the ephemeral range", () => {
    const starts = [OWN_CLUSTER_RANGE.from, 25_000, OWN_CLUSTER_RANGE.to, 40_000, 0];
    for (const frontend of starts.flatMap((s) => candidateFrontends(s))) {
      const ports = clusterPortList(clusterPorts(frontend));
      assert.ok(!layoutsOverlap(frontend, DEFAULT_CLUSTER_PORT), String(frontend));
      assert.ok(ports[0]! >= 1024 && ports.at(-1)! < 32_768, `${frontend}: ${ports.join(' ')}`);
    }
    assert.equal(new Set(candidateFrontends(25_000)).size, 50);
  });

  it('a port of the layout that something listens on is reported taken', async () => {
    const ports = clusterPorts(candidateFrontends(22_222)[0]!);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports.metrics, '127.0.0.1', resolve));
    try {
      assert.deepEqual(await takenPorts(ports), [ports.metrics]);
    } finally {
      server.close();
    }
  });
});
