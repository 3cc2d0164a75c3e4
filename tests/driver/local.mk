# The driver's integration tests: real hearth-submit, hearth-driver,
# executors (and, for the cluster cases, a real master and workers), with
# the shared helpers of tests/lib/.
#
# libtesttasks.so is a plug-in built with a plain rule and without the
# sanitizers, like examples/libpi.so.
check_DATA = tests/driver/libtesttasks.so
CLEANFILES += tests/driver/libtesttasks.so
tests/driver/libtesttasks.so: $(srcdir)/tests/driver/test_tasks.c $(srcdir)/libhearth/hearth.h
	$(AM_V_CC)mkdir -p tests/driver && \
	$(CC) $(WARN_CFLAGS) -O2 -fPIC -shared -I$(srcdir) \
		-o $@ $(srcdir)/tests/driver/test_tasks.c

# An executor that refuses LAUNCH_TASKS, or vanishes, for local[N]
# (test-big-args.sh, test-executor-gone.sh).
check_PROGRAMS += tests/driver/fake-executor
tests_driver_fake_executor_SOURCES = tests/driver/fake-executor.c
tests_driver_fake_executor_LDADD = $(CORE_LIBS)
# A TCP server that does not speak ZeroMQ (test-connect-errors.sh).
check_PROGRAMS += tests/driver/test-peer
tests_driver_test_peer_SOURCES = tests/driver/test_peer.c
# Renders what a terminal received (test-progress.sh).
check_PROGRAMS += tests/driver/test-vt
tests_driver_test_vt_SOURCES = tests/driver/test_vt.c
# A libhearth driver program (test-app-final-state.sh).
check_PROGRAMS += tests/driver/test-ctx
tests_driver_test_ctx_SOURCES = tests/driver/test_ctx.c
tests_driver_test_ctx_CPPFLAGS = -I$(top_srcdir)/libhearth
tests_driver_test_ctx_LDADD = libhearth.la

# A libhearth driver program of locality's API (test-locality.sh).
check_PROGRAMS += tests/driver/test-locality-api
tests_driver_test_locality_api_SOURCES = tests/driver/test_locality_api.c \
	tests/driver/apictx.h
tests_driver_test_locality_api_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libhearth
tests_driver_test_locality_api_LDADD = libhearth.la

# A libhearth driver program of the shuffle's API (test-shuffle-api.sh).
check_PROGRAMS += tests/driver/test-shuffle-api
tests_driver_test_shuffle_api_SOURCES = tests/driver/test_shuffle_api.c \
	tests/driver/apictx.h
tests_driver_test_shuffle_api_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libhearth
tests_driver_test_shuffle_api_LDADD = libhearth.la

# A libhearth driver program of persisted stages (test-persist.sh).
check_PROGRAMS += tests/driver/test-persist-api
tests_driver_test_persist_api_SOURCES = tests/driver/test_persist_api.c \
	tests/driver/apictx.h tests/driver/apipause.h
tests_driver_test_persist_api_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libhearth
tests_driver_test_persist_api_LDADD = libhearth.la

# A libhearth driver program of persisted stages' lineage
# (test-persist-lineage.sh).
check_PROGRAMS += tests/driver/test-persist-lineage
tests_driver_test_persist_lineage_SOURCES = \
	tests/driver/test_persist_lineage.c tests/driver/apictx.h \
	tests/driver/apipause.h
tests_driver_test_persist_lineage_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libhearth
tests_driver_test_persist_lineage_LDADD = libhearth.la

# hearth-driver's progress display, its text and its terminal (cmocka).
check_PROGRAMS += tests/driver/test_progress
tests_driver_test_progress_SOURCES = tests/driver/test_progress.c \
	jobfile/progress.c jobfile/progress.h
tests_driver_test_progress_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_driver_test_progress_LDADD = $(CMOCKA_LIBS) -lutil -lpthread
TESTS += tests/driver/test_progress

# The limits of a task (libhearth/tasklimits.c) and the batches an executor
# has not said it handled (libhearth/batches.c) (cmocka).
check_PROGRAMS += tests/driver/test_tasklimits tests/driver/test_batches
tests_driver_test_tasklimits_SOURCES = tests/driver/test_tasklimits.c \
	libhearth/tasklimits.c libhearth/tasklimits.h
tests_driver_test_tasklimits_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_driver_test_tasklimits_LDADD = $(CMOCKA_LIBS)
tests_driver_test_batches_SOURCES = tests/driver/test_batches.c \
	libhearth/batches.c libhearth/batches.h
tests_driver_test_batches_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_driver_test_batches_LDADD = $(CMOCKA_LIBS)
TESTS += tests/driver/test_tasklimits tests/driver/test_batches
check_PROGRAMS += tests/driver/test_libfns
tests_driver_test_libfns_SOURCES = tests/driver/test_libfns.c \
	libhearth/libfns.c libhearth/libfns.h libhearth/elflib.c libhearth/elflib.h
tests_driver_test_libfns_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(ELF_CFLAGS)
tests_driver_test_libfns_LDADD = $(CORE_LIBS) $(CMOCKA_LIBS) -ldl
TESTS += tests/driver/test_libfns

# What becomes of a LAUNCH_TASKS refused or not sent (libhearth/launch.c), on
# the driver's real work and task set (cmocka).
check_PROGRAMS += tests/driver/test_launch
tests_driver_test_launch_SOURCES = tests/driver/test_launch.c
tests_driver_test_launch_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_driver_test_launch_LDADD = libhearth/libdriver.la $(CORE_LIBS) \
	$(CMOCKA_LIBS) -lpthread
TESTS += tests/driver/test_launch

DRIVER_TESTS = \
	tests/driver/test-local-jobs.sh \
	tests/driver/test-job-list.sh \
	tests/driver/test-retries.sh \
	tests/driver/test-task-resources.sh \
	tests/driver/test-bad-jobs.sh \
	tests/driver/test-big-args.sh \
	tests/driver/test-executor-gone.sh \
	tests/driver/test-executor-kill.sh \
	tests/driver/test-local-cluster.sh \
	tests/driver/test-cluster-by-hand.sh \
	tests/driver/test-cluster-mode.sh \
	tests/driver/test-supervise.sh \
	tests/driver/test-cluster-mode-keys.sh \
	tests/driver/test-speculation.sh \
	tests/driver/test-event-log.sh \
	tests/driver/test-executor-hung.sh \
	tests/driver/test-driver-journal.sh \
	tests/driver/test-driver-placement.sh \
	tests/driver/test-worker-stop-driver.sh \
	tests/driver/test-progress.sh \
	tests/driver/test-driver-retention.sh \
	tests/driver/test-kill-app.sh \
	tests/driver/test-fair.sh \
	tests/driver/test-driver-relaunch-race.sh \
	tests/driver/test-submit-errors.sh \
	tests/driver/test-defaults-file.sh \
	tests/driver/test-retry-host.sh \
	tests/driver/test-permanent-failures.sh \
	tests/driver/test-local-interrupt.sh \
	tests/driver/test-app-final-state.sh \
	tests/driver/test-master-progress.sh \
	tests/driver/test-app-record.sh \
	tests/driver/test-peak-memory.sh \
	tests/driver/test-unregister-resend.sh \
	tests/driver/test-connect-errors.sh \
	tests/driver/test-files.sh \
	tests/driver/test-shipfiles.sh \
	tests/driver/test-broadcast.sh \
	tests/driver/test-job-params.sh \
	tests/driver/test-task-stderr.sh \
	tests/driver/test-shuffle.sh \
	tests/driver/test-kept-outputs.sh \
	tests/driver/test-kept-bounds.sh \
	tests/driver/test-kept-functions.sh \
	tests/driver/test-shuffle-api.sh \
	tests/driver/test-persist.sh \
	tests/driver/test-resume.sh \
	tests/driver/test-resume-chaos.sh \
	tests/driver/test-resume-master-gone.sh \
	tests/driver/test-partitioned-last.sh \
	tests/driver/test-persist-lineage.sh \
	tests/driver/test-locality.sh \
	tests/driver/test-shuffle-failures.sh \
	tests/driver/test-shuffle-worker-lost.sh
TESTS += $(DRIVER_TESTS)
EXTRA_DIST += tests/driver/test_tasks.c \
	$(DRIVER_TESTS)

# valgrind cannot run sanitized programs: only in a plain build.
if !SANITIZERS
TESTS += tests/driver/test-valgrind.sh \
	tests/driver/test-valgrind-cluster-mode.sh
endif
EXTRA_DIST += tests/driver/test-valgrind.sh \
	tests/driver/test-valgrind-cluster-mode.sh
TESTS += tests/driver/test-first-job.sh
EXTRA_DIST += tests/driver/test-first-job.sh
TESTS += tests/driver/test-slow-executor.sh
EXTRA_DIST += tests/driver/test-slow-executor.sh

# A libhearth driver program of broadcast files (test-broadcast.sh).
check_PROGRAMS += tests/driver/test-broadcast-api
tests_driver_test_broadcast_api_SOURCES = tests/driver/test_broadcast_api.c \
	tests/driver/apictx.h
tests_driver_test_broadcast_api_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libhearth
tests_driver_test_broadcast_api_LDADD = libhearth.la

# What a resumed driver reuses: stage fingerprints and the earlier
# driver's records (issue 39; cmocka).
check_PROGRAMS += tests/driver/test_resume
tests_driver_test_resume_SOURCES = tests/driver/test_resume.c
tests_driver_test_resume_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_driver_test_resume_LDADD = libhearth/libdriver.la $(CORE_LIBS) \
	$(CMOCKA_LIBS) -lpthread
TESTS += tests/driver/test_resume
