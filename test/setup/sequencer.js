// Jest runs the slowest files first, so no worker is left with a long file at the end; it knows how long each file
// took from its cache of an earlier run. A fresh clone (CI) has no such cache, and jest falls back to file size,
// which put the slowest files (a short file that sends 43,000 probes, the qemu install test) in the second half and
// added over a minute of one worker running alone at the end. A file that takes long says so in its first comment,
// `@ci-seconds <about how many seconds on CI's two cores>`, and this order uses that when the cache has nothing.
const { readFileSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;
const { extract, parse } = require('jest-docblock');

class SlowestFirst extends Sequencer {
  /** Milliseconds: the last run's, else the file's own estimate, else its size as a thousandth of a millisecond a byte. */
  time(test) {
    const cached = super.time(test);
    if (cached !== undefined) return cached;
    const source = readFileSync(test.path, 'utf8');
    const estimate = Number(parse(extract(source))['ci-seconds']);
    return Number.isFinite(estimate) && estimate > 0 ? estimate * 1000 : source.length / 1000;
  }
}

module.exports = SlowestFirst;
