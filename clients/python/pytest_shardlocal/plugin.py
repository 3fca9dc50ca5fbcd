# SPDX-License-Identifier: MIT
"""The pytest side: options, the session's server and the `shardlocal`
fixture.

    def test_hot_key(shardlocal):
        ddb = shardlocal.client()
        ...
        shardlocal.advance(1)          # one virtual second: buckets refill

Settings (command line, then environment, then ini file):

    --shardlocal-endpoint URL   SHARDLOCAL_ENDPOINT   shardlocal_endpoint
        use a server that is already running instead of starting one
    --shardlocal-bin PATH       SHARDLOCAL_BIN        shardlocal_bin
        the binary (default: shardlocal on PATH)
    --shardlocal-scope SCOPE                          shardlocal_scope
        function (default), class, module, package or session: how long
        one test's tables live before the reset
                                                      shardlocal_args
        extra flags for the server, e.g. --throttle-scale 0.01
"""

import os

import pytest

from pytest_shardlocal import Server, ShardLocal, ShardLocalError

SCOPES = ("function", "class", "module", "package", "session")


def pytest_addoption(parser):
    g = parser.getgroup("shardlocal", "shardlocal (local DynamoDB) fixture")
    g.addoption("--shardlocal-endpoint", metavar="URL", default=None,
                help="use the shardlocal already running at URL instead of "
                     "starting one (also SHARDLOCAL_ENDPOINT)")
    g.addoption("--shardlocal-bin", metavar="PATH", default=None,
                help="the shardlocal binary to start (also SHARDLOCAL_BIN; "
                     "default: shardlocal on PATH)")
    g.addoption("--shardlocal-scope", metavar="SCOPE", default=None,
                choices=SCOPES,
                help="scope of the shardlocal fixture: its tables are "
                     "deleted when it ends (default: function)")
    parser.addini("shardlocal_endpoint", "URL of a running shardlocal to "
                  "use instead of starting one")
    parser.addini("shardlocal_bin", "the shardlocal binary to start")
    parser.addini("shardlocal_scope", "scope of the shardlocal fixture "
                  "(function, class, module, package, session)",
                  default="function")
    parser.addini("shardlocal_args", "extra flags for the shardlocal it "
                  "starts", type="args", default=[])


def _setting(config, name, env):
    """--shardlocal-NAME, else $ENV, else the ini key shardlocal_NAME."""
    v = config.getoption("--shardlocal-" + name)
    if v:
        return v
    if env and os.environ.get(env):
        return os.environ[env]
    return config.getini("shardlocal_" + name) or None


def _scope(fixture_name, config):
    s = config.getoption("--shardlocal-scope") or \
        config.getini("shardlocal_scope") or "function"
    if s not in SCOPES:
        raise pytest.UsageError("shardlocal_scope = %s: expected one of %s"
                                % (s, ", ".join(SCOPES)))
    return s


def pytest_report_header(config):
    endpoint = _setting(config, "endpoint", "SHARDLOCAL_ENDPOINT")
    if endpoint:
        return "shardlocal: using %s" % endpoint
    return "shardlocal: starting %s (scope %s)" % (
        _setting(config, "bin", "SHARDLOCAL_BIN") or "shardlocal from PATH",
        _scope("shardlocal", config))


@pytest.fixture(scope="session")
def shardlocal_server(pytestconfig):
    """The session's shardlocal: started once (in memory, virtual clock,
    a free port), or the one --shardlocal-endpoint names. Tables that
    exist when the session starts are never deleted by a reset."""
    endpoint = _setting(pytestconfig, "endpoint", "SHARDLOCAL_ENDPOINT")
    srv = None
    if endpoint is None:
        try:
            srv = Server(binary=_setting(pytestconfig, "bin",
                                         "SHARDLOCAL_BIN"),
                         args=pytestconfig.getini("shardlocal_args")).start()
        except ShardLocalError as e:
            pytest.fail(str(e), pytrace=False)
        endpoint = srv.endpoint
    sl = ShardLocal(endpoint)
    sl.server = srv
    try:
        sl.baseline()
    except Exception as e:          # nothing answers DynamoDB's API there
        if srv is not None:
            srv.stop()
        pytest.fail("shardlocal at %s: %s" % (endpoint, e), pytrace=False)
    yield sl
    if srv is not None:
        rc = srv.stop()
        if rc not in (0, None):
            pytest.fail("shardlocal exited %s: %s" % (rc, srv.log()),
                        pytrace=False)


@pytest.fixture(scope=_scope)
def shardlocal(shardlocal_server):
    """A ShardLocal: .endpoint, .client(service="dynamodb"), .resource(),
    .advance(seconds), .fault(table, key, op="write", count=1,
    cause=None), .partitions(table), .hotkeys(table), .reset(). When the
    fixture's scope ends, the tables created in it are deleted and the
    fault rules cleared (the virtual clock keeps its time)."""
    yield shardlocal_server
    shardlocal_server.reset()
