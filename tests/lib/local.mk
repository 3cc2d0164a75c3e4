# The shell helpers every integration, driver and security test sources:
# cluster.sh (daemons, ports, checks, the cleanup trap), driver.sh (jobs,
# hearth-submit), security.sh (keys) and browser.sh (headless Chromium
# over WebDriver, for the web tests).
EXTRA_DIST += tests/lib/cluster.sh tests/lib/driver.sh tests/lib/security.sh \
	tests/lib/browser.sh tests/lib/zk.sh tests/lib/hamasters.sh
EXTRA_DIST += tests/lib/netns.sh tests/lib/hosts.sh
# Runs each test for the harness and notes its time (Makefile.am); under
# HEARTH_NO_SKIP=1 a skip fails but for the host reasons of may-skip.txt.
EXTRA_DIST += tests/lib/timed-test.sh tests/lib/may-skip.txt
