/**
 * Argument helpers shared by the lead scripts: each failure is one line on stderr, prefixed
 * with the script's name, and exit code 1.
 *
 * @param {string} script name printed before every message
 */
export function argHelpers(script) {
  function fail(message) {
    process.stderr.write(`${script}: ${message}\n`);
    process.exit(1);
  }

  /** An integer option of at least `min`. */
  function integer(name, raw, min) {
    if (!/^-?\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
      fail(`--${name} must be an integer of at least ${min}, got "${raw}"`);
    }
    return Number(raw);
  }

  /** A share option from 0 to 1. */
  function share(name, raw) {
    const value = Number(raw);
    if (raw.trim() === '' || !(value >= 0 && value <= 1)) {
      fail(`--${name} must be a number from 0 to 1, got "${raw}"`);
    }
    return value;
  }

  return { fail, integer, share };
}
