// The widget release this service serves at /widget/{version}/ (wire contract §12): every file
// the widget's build hashed into dist/sri.json (the scripts, the element, its chunks and
// locales), and sri.json itself, copied into dist/widget/{version}/. Run after the widget's
// build (npm run build does both); without it the service is built with no widget, says so in
// the console, and answers 404 under /widget/.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const service = fileURLToPath(new URL('..', import.meta.url));
const widgetDist = join(service, '..', 'dist');
const out = join(service, 'dist', 'widget');
rmSync(out, { recursive: true, force: true });
const sriFile = join(widgetDist, 'sri.json');
if (!existsSync(sriFile)) {
  console.warn(
    'agent-chat-service: no widget build (dist/sri.json) to serve at /widget/: build the widget first.',
  );
  process.exit(0);
}
const version = JSON.parse(readFileSync(join(service, '..', 'package.json'), 'utf8')).version;
const release = join(out, version);
for (const file of [...Object.keys(JSON.parse(readFileSync(sriFile, 'utf8'))), 'sri.json']) {
  mkdirSync(dirname(join(release, file)), { recursive: true });
  copyFileSync(join(widgetDist, file), join(release, file));
}
