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
    failed = len(result.failures) + len(result.errors) + \
        len(result.unexpectedSuccesses) + load_errors
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped + load_errors
    print("E2E-RESULT %s %d %d %d" % (label, passed, failed, skipped))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
