// Rolls each expression of a JSON list (argv[2]) `argv[3]` times with @dice-roller/rpg-dice-roller
// (npm, pinned in package.json, dev only: never in the site) and prints, per expression, whether it
// was accepted and the lowest, highest and mean total seen (and the standard deviation). Seeded: the same figures every run.
import { DiceRoll, NumberGenerator } from '@dice-roller/rpg-dice-roller';
import { readFileSync } from 'node:fs';

const expressions = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const rolls = Number(process.argv[3] || 4000);
NumberGenerator.generator.engine = NumberGenerator.engines.MersenneTwister19937.seed(20261124);
const out = {};
for (const expr of expressions) {
  try {
    let low = Infinity, high = -Infinity, sum = 0, squares = 0;
    for (let i = 0; i < rolls; i++) {
      const total = new DiceRoll(expr).total;
      if (typeof total !== 'number' || Number.isNaN(total)) throw new Error(`no number: ${total}`);
      low = Math.min(low, total); high = Math.max(high, total); sum += total; squares += total * total;
    }
    const mean = sum / rolls;
    const sd = Math.sqrt(Math.max(0, (squares - rolls * mean * mean) / Math.max(1, rolls - 1)));
    out[expr] = { accepted: true, min: low, max: high, mean, sd };
  } catch (error) {
    out[expr] = { accepted: false, error: String(error && error.message || error).slice(0, 200) };
  }
}
process.stdout.write(JSON.stringify(out));
