/** The positive number after `--<name>` on the command line, or `fallback` when it is absent. */
export function numberFlag(name: string, fallback: number, argv = process.argv): number {
  const at = argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(argv[at + 1]) : fallback;
  if (!(value > 0)) throw new Error(`--${name} must be a positive number`);
  return value;
}
