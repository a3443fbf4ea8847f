#!/usr/bin/env python3
"""Where an agent sat idle: the gaps between consecutive lines of its log (ts=...).

Usage: bench/scripts/log-gaps.py AGENT_LOG [--last N] [--over MS] [--top K] [--sum-only]

Looks at the stretch from the N-th last `completion.delivered` line to the last one (default: all
of them) and prints its span, the number and sum of the gaps longer than MS milliseconds (default
10) and the K longest gaps with the events on either side (default 5). A busy agent logs a line
every few hundred microseconds, so a long gap is a wait: a force of the journal, the control plane,
or the cadence waiting for its next period. --sum-only prints just the sum in seconds.
"""
import argparse
import re
import sys

LINE = re.compile(r'ts=\S*T(\d\d):(\d\d):(\d\d(?:\.\d+)?)Z \S+ event=(\S+)')


def events(path):
    out = []
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if m:
                t = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
                out.append((t, m.group(4)))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument('log')
    p.add_argument('--last', type=int, default=0)
    p.add_argument('--over', type=float, default=10.0)
    p.add_argument('--top', type=int, default=5)
    p.add_argument('--sum-only', action='store_true')
    a = p.parse_args()
    ev = events(a.log)
    delivered = [i for i, e in enumerate(ev) if e[1] == 'completion.delivered']
    if len(delivered) < 2:
        sys.exit(f'{a.log}: fewer than two completion.delivered lines')
    first = delivered[-a.last] if 0 < a.last <= len(delivered) else delivered[0]
    seg = ev[first:delivered[-1] + 1]
    gaps = [(b[0] - x[0], x[1], b[1]) for x, b in zip(seg, seg[1:])]
    if any(g[0] < 0 for g in gaps):
        sys.exit(f'{a.log}: the stretch crosses midnight UTC; not handled')
    long_gaps = [g for g in gaps if g[0] * 1000 > a.over]
    total = sum(g[0] for g in long_gaps)
    if a.sum_only:
        print(f'{total:.3f}')
        return
    span = seg[-1][0] - seg[0][0]
    print(f'span {span:.3f} s, {len(long_gaps)} gaps over {a.over:g} ms summing {total:.3f} s')
    for g in sorted(gaps, reverse=True)[:a.top]:
        print(f'  {g[0] * 1000:9.2f} ms  {g[1]} -> {g[2]}')


if __name__ == '__main__':
    main()
