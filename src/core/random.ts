/**
 * mulberry32: a tiny, fast seeded PRNG (floats in [0, 1)). Math.random cannot be seeded, and
 * benchmarks, sweeps and fault schedules must repeat for a given seed. (The synthetic market uses
 * the stronger xoshiro128** of src/market-data/prng.ts.)
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
