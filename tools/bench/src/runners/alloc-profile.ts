/**
 * Loaded into a runner with `node --import` when `MCR_BENCH_ALLOC_PROF=<dir>` is set: samples every allocation the
 * process makes, including objects already collected (which `node --heap-prof` leaves out, though that garbage is
 * what costs GC time), and writes `<dir>/alloc-<pid>.heapprofile` when the process exits. Open it in Chrome DevTools
 * (Memory, Load) or VS Code.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env['MCR_BENCH_ALLOC_PROF'];
if (dir) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 32 * 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // An in-process session answers synchronously, so this runs to the end inside the exit handler.
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (!err) writeFileSync(join(dir, `alloc-${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
  });
}
