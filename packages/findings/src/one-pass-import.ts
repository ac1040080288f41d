import { fingerprintBase, fingerprintOf } from './fingerprint';
import { mergeInto } from './merge';
import { Finding } from './model';
import { TextSpill } from './spill';

/** A finding's JSON as Bulwark stores it: `detectedAt` (the run's time) last, outside `content`. */
export interface FindingJson {
  text: string;
  /** The finding without `detectedAt`: a rescan of unchanged code has the same content in new bytes. */
  content: string;
}

export function findingJson(f: Finding): FindingJson {
  const detectedAt = f.detectedAt;
  // Left out as undefined, not copied out: a spread of every finding's properties cost more than the text.
  f.detectedAt = undefined;
  const content = JSON.stringify(f);
  f.detectedAt = detectedAt;
  const text =
    detectedAt === undefined ? content : `${content.slice(0, -1)},"detectedAt":${JSON.stringify(detectedAt)}}`;
  return { text, content };
}

/** Where `streamImportReport` hands an import's findings. */
export interface ImportSink {
  /** A finding at `seq`: its position in `importReport`'s result, from 0. Once per `seq`. */
  found(seq: number, finding: Finding, json: FindingJson): void;
  /**
   * The final form of a finding `found` gave before, at the same `seq` and severity: a later finding
   * of its fingerprint group came at a lower line (its ordinal changed) or was a duplicate merged into
   * it. At most once per `seq`, after the report was read. Without this handler nothing is handed over
   * before the report has been read to its end, and then every finding once, in order.
   */
  amended?(seq: number, finding: Finding, json: FindingJson): void;
}

/** One finding of a group, set aside in the spill. */
interface Member {
  seq: number;
  line: number;
  record: number;
}

interface Group {
  /** Told apart by line: the group's distinct start lines rank its fingerprints (fingerprint.ts). */
  byLine: boolean;
  /** The group's first finding, handed over at once as if it stayed alone. */
  first: Member;
  /** The rest of the group, once a second finding came: settled after the report was read. */
  rest?: { duplicatesOfFirst: number[]; otherLines: Map<number, { seq: number; records: number[] }> };
}

/**
 * An import that reads a report once. A finding's fingerprint depends on the other findings of its
 * group (the rank of its line among theirs), and duplicates merge into the first of their
 * fingerprint, so a streamed finding may only be final once the report has ended. Most groups hold
 * one finding: the first finding of each group is handed over at once, as if alone; a group's later
 * findings are set aside on disk (memory stays bounded whatever the report) and settled at the end,
 * where the first is amended if the rest changed it. Sequence numbers are the order in which each
 * fingerprint first occurs, as `importReport` orders its result.
 */
export class OnePassImport {
  private readonly groups = new Map<string, Group>();
  private readonly spill = new TextSpill();
  /** Without `amended`: each sequence number's final record in the spill, handed over at the end. */
  private readonly settled: number[] | undefined;
  private next = 0;

  constructor(private readonly sink: ImportSink) {
    this.settled = sink.amended ? undefined : [];
  }

  add(f: Finding): void {
    const { key, byLine } = fingerprintBase(f);
    // The fingerprint a finding has alone names its group: whether lines tell a key's findings apart
    // depends on the key's kind, so one key has one such fingerprint.
    const alone = fingerprintOf(key, byLine ? 0 : undefined);
    const line = byLine ? (f.startLine ?? 0) : 0;
    const group = this.groups.get(alone);
    if (!group) {
      f.fingerprint = alone;
      const json = findingJson(f);
      const first = { seq: this.next++, line, record: this.spill.append(json.text) };
      this.groups.set(alone, { byLine, first });
      if (this.settled) this.settled.push(first.record);
      else this.sink.found(first.seq, f, json);
      return;
    }
    const rest = (group.rest ??= {
      duplicatesOfFirst: [],
      otherLines: new Map<number, { seq: number; records: number[] }>(),
    });
    const record = this.spill.append(JSON.stringify(f));
    if (line === group.first.line) {
      rest.duplicatesOfFirst.push(record);
      return;
    }
    const other = rest.otherLines.get(line);
    if (other) other.records.push(record);
    else {
      rest.otherLines.set(line, { seq: this.next++, records: [record] });
      this.settled?.push(-1);
    }
  }

  /** Settles the groups with more than one finding; the answer is the number of findings. */
  finish(): number {
    try {
      for (const group of this.groups.values()) {
        if (!group.rest) continue;
        const { first, rest } = group;
        const ranks = group.byLine
          ? new Map([first.line, ...rest.otherLines.keys()].sort((a, b) => a - b).map((l, rank) => [l, rank]))
          : undefined;
        const firstRank = ranks?.get(first.line);
        if (rest.duplicatesOfFirst.length > 0 || (firstRank ?? 0) !== 0) {
          this.settle(first.seq, [first.record, ...rest.duplicatesOfFirst], firstRank, true);
        }
        for (const [line, { seq, records }] of rest.otherLines) this.settle(seq, records, ranks?.get(line), false);
      }
      if (this.settled) {
        this.settled.forEach((record, seq) => {
          const text = this.spill.read(record);
          const f = JSON.parse(text) as Finding;
          this.sink.found(seq, f, findingJson(f));
        });
      }
      return this.next;
    } finally {
      this.spill.close();
    }
  }

  /** Closes the spill of an import that failed before `finish`. */
  abandon(): void {
    this.spill.close();
  }

  /** One fingerprint's final finding: its first occurrence with its ordinal, the later ones merged in. */
  private settle(seq: number, records: number[], rank: number | undefined, amends: boolean): void {
    const kept = JSON.parse(this.spill.read(records[0])) as Finding;
    kept.fingerprint = fingerprintOf(fingerprintBase(kept).key, rank);
    for (const record of records.slice(1)) mergeInto(kept, JSON.parse(this.spill.read(record)) as Finding);
    const json = findingJson(kept);
    if (this.settled) this.settled[seq] = this.spill.append(json.text);
    else if (amends) this.sink.amended?.(seq, kept, json);
    else this.sink.found(seq, kept, json);
  }
}
