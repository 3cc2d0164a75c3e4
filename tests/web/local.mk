# Web tests: the pages in a real browser (headless Chromium driven over
# WebDriver by tests/lib/browser.sh).
WEB_TESTS = \
	tests/web/test-browser-harness.sh
TESTS += $(WEB_TESTS)
EXTRA_DIST += $(WEB_TESTS)
