import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { luaScript } from './lua';

describe(luaScript.name, () => {
  it('joins the files in the order given, each read from disk once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailbridge-lua-'));
    writeFileSync(join(dir, 'head.lua'), 'local a = 1');
    writeFileSync(join(dir, 'body.lua'), 'return a');
    expect(luaScript(dir, 'head', 'body')).toBe('#!lua\nlocal a = 1\nreturn a');
    writeFileSync(join(dir, 'body.lua'), 'return 2');
    expect(luaScript(dir, 'body')).toBe('#!lua\nreturn a'); // the text read at start-up stays
  });

  it('marks every script strict, so that a cluster refuses one touching two slots', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailbridge-lua-'));
    writeFileSync(join(dir, 'only.lua'), 'return 1');
    expect(luaScript(dir, 'only').split('\n')[0]).toBe('#!lua');
  });

  it('reads the scripts the stores run from beside them', () => {
    const claim = luaScript(join(__dirname, '../idempotency'), 'claim');
    expect(claim).toContain("redis.call('GET', key)");
  });
});
