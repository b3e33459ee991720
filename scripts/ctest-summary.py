#!/usr/bin/env python3
"""One "N passed, N failed" line from ctest's JUnit report (ctest --output-junit FILE).

  scripts/ctest-summary.py FILE

A test that printed "Catch2 cases: L listed, R ran, P passed, F failed" (tests/run_every_case.cmake)
counts as its P + F cases, and at least one failure when ctest failed it (fewer cases ran than are
listed, hidden cases, a crash). Every other test counts once. A test that did not run, or a report
with no tests, is a failure.
"""
import re
import sys
import xml.etree.ElementTree as ET

CASES = re.compile(r"Catch2 cases: (\d+) listed, (\d+) ran, (\d+) passed, (\d+) failed")

passed = failed = 0
try:
    cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
    cases = list(cases)
except (OSError, ET.ParseError, IndexError) as e:
    print(f"no ctest report: {e}")
    cases = []
for case in cases:
    ok = case.get("status") == "run" and case.find("failure") is None
    out = case.findtext("system-out") or ""
    m = CASES.search(out)
    if m:
        p, f = int(m.group(3)), int(m.group(4))
        passed += p
        failed += f if ok or f else 1
    elif ok:
        passed += 1
    else:
        failed += 1
if not cases:
    failed += 1
print(f"{passed} passed, {failed} failed")
sys.exit(0 if failed == 0 else 1)
