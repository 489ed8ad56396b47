#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn KUnit's per-suite KTAP results into flat TAP lines, one per test case.

Usage: ktap2tap.py SUITE=FILE... [--expect SUITE...]

Each FILE is /sys/kernel/debug/kunit/SUITE/results. A case is reported as
"ok - kunit SUITE: CASE" or "not ok - ...", with its parameterised
sub-results summarised on failure. A suite that was expected but has no
results file, or whose own result line is "not ok" while no case failed
(a failing suite_init, say), is reported as a failure too.
"""
import re
import sys

RESULT = re.compile(r'^(\s*)(not ok|ok) \d+(?: -)? ?(.*?)(?:\s+#\s*(SKIP.*))?$')


def parse(suite, text):
    rows = [(len(m.group(1)), m.group(2) == 'ok', m.group(3), m.group(4), i)
            for i, line in enumerate(text.splitlines())
            for m in [RESULT.match(line)] if m]
    if not rows:
        return [f'not ok - kunit {suite}: no results (suite did not run)']
    levels = sorted({r[0] for r in rows})
    suite_level = levels[0]
    case_level = levels[1] if len(levels) > 1 else None
    out, any_case_failed = [], False
    lines = text.splitlines()
    prev = 0
    for indent, ok, name, skip, idx in rows:
        if indent == case_level:
            line = f'{"ok" if ok else "not ok"} - kunit {suite}: {name}'
            if skip:
                line += f' # {skip}'
            out.append(line)
            if not ok:
                any_case_failed = True
                # The case's log (expectation messages) precedes its line.
                for detail in lines[prev:idx]:
                    if detail.strip() and not RESULT.match(detail):
                        out.append('#   ' + detail.strip())
            prev = idx + 1
        elif indent == suite_level and not ok and not any_case_failed:
            out.append(f'not ok - kunit {suite}: suite failed: {name}')
    if case_level is None:
        out.append(f'not ok - kunit {suite}: no test cases ran')
    return out


def main(argv):
    expect, pairs = [], []
    it = iter(argv)
    for a in it:
        if a == '--expect':
            expect.extend(it)
            break
        suite, _, path = a.partition('=')
        pairs.append((suite, path))
    seen = set()
    failed = False
    for suite, path in pairs:
        seen.add(suite)
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            text = ''
            print(f'# {path}: {e}')
        for line in parse(suite, text):
            print(line)
            failed |= line.startswith('not ok')
    for suite in expect:
        if suite not in seen:
            print(f'not ok - kunit {suite}: expected suite has no results')
            failed = True
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
