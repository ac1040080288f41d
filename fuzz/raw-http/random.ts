/** A seeded source of choices (mulberry32): the same seed makes the same requests in the same order. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** One of `choices`, each as likely as its weight. */
  weighted<T>(choices: readonly [number, T][]): T {
    let r = this.next() * choices.reduce((sum, [w]) => sum + w, 0);
    for (const [w, value] of choices) {
      r -= w;
      if (r < 0) return value;
    }
    return choices[choices.length - 1][1];
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  hex(bytes: number): string {
    return Array.from({ length: bytes }, () => this.int(256).toString(16).padStart(2, '0')).join('');
  }
}
