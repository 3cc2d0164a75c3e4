# Security tests: CurveZMQ keys, admission and refusals on real processes.
# authz-probe sends the master each command as one key and tells which it
# refused (test-authz-table.sh).
check_PROGRAMS += tests/security/authz-probe
tests_security_authz_probe_SOURCES = tests/security/authz-probe.c
tests_security_authz_probe_LDADD = $(CORE_LIBS)
SECURITY_TESTS = \
	tests/security/test-keys.sh \
	tests/security/test-secure-cluster.sh \
	tests/security/test-authz.sh \
	tests/security/test-authz-table.sh \
	tests/security/test-local-users.sh \
	tests/security/test-request-errors.sh \
	tests/security/test-capture.sh \
	tests/security/test-shared-files.sh \
	tests/security/test-control-chars.sh \
	tests/security/test-run-as.sh \
	tests/security/test-run-as-env.sh \
	tests/security/test-run-as-journal.sh
TESTS += $(SECURITY_TESTS)
EXTRA_DIST += $(SECURITY_TESTS)
