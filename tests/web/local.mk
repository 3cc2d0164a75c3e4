# The daemons' web servers: routes, logs, metrics, security
# (tests/web/web.sh holds their helpers); the pages in a real browser
# (headless Chromium driven over WebDriver by tests/lib/browser.sh).
WEB_TESTS = \
	tests/web/test-web-master.sh \
	tests/web/test-web-worker.sh \
	tests/web/test-browser-harness.sh
TESTS += $(WEB_TESTS)
EXTRA_DIST += $(WEB_TESTS) tests/web/web.sh
