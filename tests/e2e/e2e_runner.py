# SPDX-License-Identifier: MIT
# e2e_runner.py - run the named unittest modules and print one summary line
# "E2E-RESULT <label> <passed> <failed> <skipped>" that run.sh adds up.
import os
import sys
import unittest


def main(argv):
    label, modules = argv[1], argv[2:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    load_errors = 0
    for m in modules:
        try:
            suite.addTests(loader.loadTestsFromName(m))
        except Exception as e:                       # import failure
            print("cannot load %s: %r" % (m, e), file=sys.stderr)
            load_errors += 1
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    # Count tests, not subtests; a failing setUpClass/tearDownClass is
    # reported as an error of a pseudo-test and counts as one failure.
    bad = set()
    for test, _ in result.failures + result.errors:
        bad.add(getattr(test, "test_case", test).id())
    for test in result.unexpectedSuccesses:
        bad.add(test.id())
    failed = len(bad) + load_errors
    skipped = len(result.skipped)
    ran_bad = len([b for b in bad if not b.startswith("setUpClass") and
                   not b.startswith("tearDownClass") and
                   " (" not in b])
    passed = max(0, result.testsRun - ran_bad - skipped)
    print("E2E-RESULT %s %d %d %d" % (label, passed, failed, skipped))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
