# The daemons' web servers: routes, logs, metrics, security
# (tests/web/web.sh holds their helpers).
WEB_TESTS = \
	tests/web/test-web-master.sh \
	tests/web/test-web-worker.sh \
	tests/web/test-web-metrics.sh \
	tests/web/test-web-security.sh
TESTS += $(WEB_TESTS)
EXTRA_DIST += $(WEB_TESTS) tests/web/web.sh
