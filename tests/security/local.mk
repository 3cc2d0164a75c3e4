# Security tests: CurveZMQ keys, admission and refusals on real processes.
# authz-probe sends the master each command as one key and tells which it
# refused (test-authz-table.sh).
check_PROGRAMS += tests/security/authz-probe
tests_security_authz_probe_SOURCES = tests/security/authz-probe.c
tests_security_authz_probe_LDADD = $(CORE_LIBS)
# plain-catch listens where a keyless master would, as a stranger, and
# prints the cookie a client presents (test-cookie-theft.sh).
check_PROGRAMS += tests/security/plain-catch
tests_security_plain_catch_SOURCES = tests/security/plain-catch.c
tests_security_plain_catch_LDADD = $(CORE_LIBS)
# block-probe asks a worker's block server for a block, as any reducer
# (test-app-takeover.sh, test-app-claim-late.sh).
check_PROGRAMS += tests/security/block-probe
tests_security_block_probe_SOURCES = tests/security/block-probe.c
tests_security_block_probe_LDADD = $(CORE_LIBS)
SECURITY_TESTS = \
	tests/security/test-keys.sh \
	tests/security/test-secure-cluster.sh \
	tests/security/test-authz.sh \
	tests/security/test-authz-table.sh \
	tests/security/test-authz-runner.sh \
	tests/security/test-worker-key.sh \
	tests/security/test-app-takeover.sh \
	tests/security/test-app-claim-late.sh \
	tests/security/test-local-users.sh \
	tests/security/test-cookie-theft.sh \
	tests/security/test-web-local-users.sh \
	tests/security/test-request-errors.sh \
	tests/security/test-capture.sh \
	tests/security/test-shared-files.sh \
	tests/security/test-control-chars.sh \
	tests/security/test-run-as.sh \
	tests/security/test-driver-keys.sh \
	tests/security/test-inherited-fds.sh \
	tests/security/test-run-as-env.sh \
	tests/security/test-run-as-journal.sh
TESTS += $(SECURITY_TESTS)
EXTRA_DIST += $(SECURITY_TESTS)
