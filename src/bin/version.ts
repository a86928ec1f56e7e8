import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The version in chainflow's package.json, for `chainflow_build_info`. Read rather than imported: an imported
 * package.json would be copied into dist/ by tsc. The file sits one folder above the bundle (dist/chainflow.js),
 * two above the sources (src/bin), three above tsc's output (dist/src/bin).
 */
export function packageVersion(): string {
  for (const up of ['..', '../..', '../../..']) {
    try {
      const pkg = JSON.parse(readFileSync(join(__dirname, up, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'chainflow' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // Not there: look one folder further up.
    }
  }
  return 'unknown';
}
