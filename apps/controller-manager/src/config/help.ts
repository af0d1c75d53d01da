// --help: every flag with its type, default, environment variable and description.
import { FLAGS, envName } from './flags.ts';

function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

export function helpText(knownControllers: readonly string[]): string {
  const head = [
    'Usage: controller-manager [flags]',
    '',
    'Runs the cloneset-suite controllers (leader only) and serves admission webhooks, /healthz,',
    '/readyz and /metrics (every replica). Each flag can also be set as an environment variable',
    'or as a key of the YAML file given by --config; flags win over the environment, which wins',
    'over the file.',
    '',
    `Controllers: ${knownControllers.length ? knownControllers.join(', ') : '(none registered yet)'}`,
    '',
    'Flags:',
  ];
  const body = FLAGS.map((f) => {
    const title = `  --${f.name}${f.boolean ? '' : ` ${f.type}`}`;
    const dflt = f.defaultText ? ` (default ${f.defaultText})` : '';
    return `${title}\n${wrap(`${f.help}${dflt} [env ${envName(f.name)}]`, 88, '      ')}`;
  });
  return [...head, ...body, '  -h, --help\n      Show this help.', ''].join('\n');
}
