// helm's post-renderer for the local release: `post-render.ts <gateway ip> <apiserver port>`,
// manifests on stdin, rewritten manifests on stdout (see apiserver-access.ts for why).
import { text } from 'node:stream/consumers';
import { pointDeploymentsAtApiserver } from './apiserver-access.ts';

const [ip, port] = process.argv.slice(2);
if (ip === undefined || port === undefined || !/^\d+$/.test(port)) {
  console.error('usage: post-render.ts <gateway ip> <apiserver port>');
  process.exit(2);
}
process.stdout.write(pointDeploymentsAtApiserver(await text(process.stdin), { ip, port: Number(port) }));
