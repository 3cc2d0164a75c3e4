# Security tests: CurveZMQ keys, admission and refusals on real processes.
SECURITY_TESTS = \
	tests/security/test-keys.sh \
	tests/security/test-secure-cluster.sh \
	tests/security/test-authz.sh \
	tests/security/test-capture.sh \
	tests/security/test-shared-files.sh
TESTS += $(SECURITY_TESTS)
EXTRA_DIST += $(SECURITY_TESTS)
