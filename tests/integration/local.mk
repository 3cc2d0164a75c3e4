# Integration tests: shell scripts that start real daemons on 127.0.0.1
# (and, for test-netns, in network namespaces of their own), with a small
# test driver in C that prints what the master tells it.
check_PROGRAMS += tests/integration/test-app
tests_integration_test_app_SOURCES = tests/integration/test-app.c
tests_integration_test_app_LDADD = $(CORE_LIBS)
# Many idle or hostile TCP connections, for test-load-flood.sh.
check_PROGRAMS += tests/integration/flood
tests_integration_flood_SOURCES = tests/integration/flood.c
# The service manager's end of sd_notify, for test-notify.sh.
check_PROGRAMS += tests/integration/notify-listen
tests_integration_notify_listen_SOURCES = tests/integration/notify-listen.c
# The shuffle's pieces from a script: map outputs written, blocks fetched
# from a worker (test-shuffle-server.sh).
check_PROGRAMS += tests/integration/shuffle-tool
tests_integration_shuffle_tool_SOURCES = tests/integration/shuffle-tool.c \
	executor/fetch.c executor/fetch.h
tests_integration_shuffle_tool_LDADD = $(CORE_LIBS)
# The driver's part toward one real executor: tasks with shuffle roles
# launched, their updates printed (test-executor-shuffle.sh).
check_PROGRAMS += tests/integration/exec-tool
tests_integration_exec_tool_SOURCES = tests/integration/exec-tool.c
tests_integration_exec_tool_LDADD = $(CORE_LIBS)
check_PROGRAMS += tests/integration/test-fakepeer
tests_integration_test_fakepeer_SOURCES = tests/integration/test-fakepeer.c
tests_integration_test_fakepeer_LDADD = $(CORE_LIBS)

INTEGRATION_TESTS = \
	tests/integration/test-cgroup-oom.sh \
	tests/integration/test-cgroup-cpu.sh \
	tests/integration/test-cgroup-cleanup.sh \
	tests/integration/test-cgroup-auto.sh \
	tests/integration/test-cgroup-escape.sh \
	tests/integration/test-strays.sh \
	tests/integration/test-cluster-state.sh \
	tests/integration/test-worker-death.sh \
	tests/integration/test-master-restart.sh \
	tests/integration/test-placement.sh \
	tests/integration/test-executors.sh \
	tests/integration/test-app-failures.sh \
	tests/integration/test-garbage.sh \
	tests/integration/test-submit-cluster.sh \
	tests/integration/test-scripts.sh \
	tests/integration/test-install.sh \
	tests/integration/test-master-journal.sh \
	tests/integration/test-reconcile-journal.sh \
	tests/integration/test-dead-heartbeat.sh \
	tests/integration/test-recovery-timeout.sh \
	tests/integration/test-backoff.sh \
	tests/integration/test-worker-restart.sh \
	tests/integration/test-version.sh \
	tests/integration/test-worker-kill.sh \
	tests/integration/test-driver-kill.sh \
	tests/integration/test-resume-window.sh \
	tests/integration/test-resume-master.sh \
	tests/integration/test-chaos.sh \
	tests/integration/test-netns.sh \
	tests/integration/test-locality-hosts.sh \
	tests/integration/test-labels.sh \
	tests/integration/test-labels-wait.sh \
	tests/integration/test-dynalloc-places.sh \
	tests/integration/test-worker-same-id.sh \
	tests/integration/test-app-waiting.sh \
	tests/integration/test-unschedulable.sh \
	tests/integration/test-dynalloc.sh \
	tests/integration/test-tail-topics.sh \
	tests/integration/test-scripts-usage.sh \
	tests/integration/test-install-run.sh \
	tests/integration/test-systemd-units.sh \
	tests/integration/test-man-pages.sh \
	tests/integration/test-no-skip.sh \
	tests/integration/test-master-pause.sh \
	tests/integration/test-journal-disk-full.sh \
	tests/integration/test-cores-after-end.sh \
	tests/integration/test-notify.sh \
	tests/integration/test-worker-ids.sh \
	tests/integration/test-worker-duplicate.sh \
	tests/integration/test-worker-stopping.sh \
	tests/integration/test-worker-master-file.sh \
	tests/integration/test-decommission.sh \
	tests/integration/test-recovery-replaced.sh \
	tests/integration/test-worker-resources.sh \
	tests/integration/test-resources.sh \
	tests/integration/test-peer-garbage.sh \
	tests/integration/test-launch-storm.sh \
	tests/integration/test-admin.sh \
	tests/integration/test-tail-defaults.sh \
	tests/integration/test-shuffle-server.sh \
	tests/integration/test-executor-shuffle.sh \
	tests/integration/test-executor-ship.sh \
	tests/integration/test-ship-p2p.sh \
	tests/integration/test-executor-resources.sh \
	tests/integration/test-load-clients.sh \
	tests/integration/test-load-flood.sh
TESTS += $(INTEGRATION_TESTS)
EXTRA_DIST += $(INTEGRATION_TESTS)
AM_TESTS_ENVIRONMENT += \
	HEARTH_BIN_DIR='$(abs_top_builddir)'; \
	HEARTH_TEST_BIN_DIR='$(abs_top_builddir)/tests/integration'; \
	HEARTH_SRC_DIR='$(abs_top_srcdir)'; MAKE='$(MAKE)'; \
	export HEARTH_BIN_DIR HEARTH_TEST_BIN_DIR HEARTH_SRC_DIR MAKE;

# valgrind cannot run sanitized programs: only in a plain build.
if !SANITIZERS
TESTS += tests/integration/test-valgrind.sh
endif
EXTRA_DIST += tests/integration/test-valgrind.sh
# Long: in TESTS at the top of Makefile.am, so that it starts first.
EXTRA_DIST += tests/integration/test-readme-cluster.sh
