# The daemons' web servers: routes, logs, metrics, security
# (tests/web/web.sh holds their helpers); the pages in a real browser
# (headless Chromium driven over WebDriver by tests/lib/browser.sh).
WEB_TESTS = \
	tests/web/test-web-master.sh \
	tests/web/test-web-worker.sh \
	tests/web/test-web-metrics.sh \
	tests/web/test-web-security.sh \
	tests/web/test-web-token.sh \
	tests/web/test-web-timeline.sh \
	tests/web/test-web-kill.sh \
	tests/web/test-browser-harness.sh \
	tests/web/test-browser.sh \
	tests/web/test-browser-timeline.sh \
	tests/web/test-browser-kill.sh
TESTS += $(WEB_TESTS)
EXTRA_DIST += $(WEB_TESTS) tests/web/web.sh
# test-browser.sh keeps its screenshots and console log here.
clean-local: clean-browser-artifacts
clean-browser-artifacts:
	rm -rf tests/web/test-browser-artifacts
.PHONY: clean-browser-artifacts
