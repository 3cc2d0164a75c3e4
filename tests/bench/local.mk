# Benchmarks (docs/performance.md).  The programs are built by
# `make check` (so that they always compile, and distcheck builds them),
# which runs each once at a tiny size (test-bench-smoke.sh) so that they
# keep working; only `make bench` measures: tests/bench/run-bench.sh,
# which prints every figure beside its reference and target.  Run it in a
# build configured without --enable-sanitizers.
#
# libbenchtasks.so (noop, sleep_ms) is a plug-in built with a plain rule
# and without the sanitizers, like examples/libpi.so.
BENCH_PROGS = tests/bench/bench-zmq tests/bench/bench-driver \
	tests/bench/bench-master tests/bench/bench-startup \
	tests/bench/bench-shuffle tests/bench/bench-histgen \
	tests/bench/bench-hbprobe tests/bench/bench-evlog \
	tests/bench/bench-cgspawn tests/bench/bench-persist
check_PROGRAMS += $(BENCH_PROGS)

tests_bench_bench_zmq_SOURCES = tests/bench/bench_zmq.c tests/bench/benchutil.h \
	tests/bench/zmqref.h
tests_bench_bench_zmq_LDADD = $(ZMQ_LIBS) $(CJSON_LIBS)

tests_bench_bench_driver_SOURCES = tests/bench/bench_driver.c tests/bench/zmqref.h \
	tests/bench/benchutil.h
tests_bench_bench_driver_LDADD = libhearth/libdriver.la $(CORE_LIBS) -lpthread

tests_bench_bench_master_SOURCES = tests/bench/bench_master.c \
	tests/bench/benchutil.h tests/bench/benchcookie.h
tests_bench_bench_master_LDADD = $(CORE_LIBS)

tests_bench_bench_startup_SOURCES = tests/bench/bench_startup.c \
	tests/bench/benchutil.h

tests_bench_bench_shuffle_SOURCES = tests/bench/bench_shuffle.c \
	tests/bench/benchutil.h

tests_bench_bench_histgen_SOURCES = tests/bench/bench_histgen.c

# Benchmark 28, persisted stages (bench-persist.sh): the driver program,
# the input's generator and the single-process reference.
tests_bench_bench_persist_SOURCES = tests/bench/bench_persist.c \
	tests/bench/points.h
tests_bench_bench_persist_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libhearth
tests_bench_bench_persist_LDADD = libhearth.la

# A child's placement in its cgroup v2 group: joined, or created there
# (docs/performance.md, "A child created in its group").
tests_bench_bench_cgspawn_SOURCES = tests/bench/bench_cgspawn.c \
	tests/bench/benchutil.h tests/lib/scratchcg.h
tests_bench_bench_cgspawn_LDADD = $(CORE_LIBS)

# The event log's own CPU a task (docs/performance.md, "The event log's
# cost").
tests_bench_bench_evlog_SOURCES = tests/bench/bench_evlog.c \
	tests/bench/benchutil.h
tests_bench_bench_evlog_LDADD = libhearth/libdriver.la $(CORE_LIBS) -lpthread

# The master's heartbeat-to-reply time, for bench-web.sh.
tests_bench_bench_hbprobe_SOURCES = tests/bench/bench_hbprobe.c \
	tests/bench/benchutil.h tests/bench/benchcookie.h
tests_bench_bench_hbprobe_LDADD = $(CORE_LIBS)

check_DATA += tests/bench/libbenchtasks.so
CLEANFILES += tests/bench/libbenchtasks.so
tests/bench/libbenchtasks.so: $(srcdir)/tests/bench/bench_tasks.c $(srcdir)/libhearth/hearth.h \
		$(srcdir)/tests/bench/points.h
	$(AM_V_CC)mkdir -p tests/bench && \
	$(CC) $(WARN_CFLAGS) -O2 -fPIC -shared -I$(srcdir) \
		-o $@ $(srcdir)/tests/bench/bench_tasks.c

# (test-bench-smoke.sh is in TESTS at the top of Makefile.am: a long one)
EXTRA_DIST += tests/bench/bench_tasks.c tests/bench/run-bench.sh \
	tests/bench/bench-load.sh tests/bench/bench-shuffle.sh \
	tests/bench/bench-history.sh tests/bench/bench-web.sh \
	tests/bench/bench-isolation.sh tests/bench/bench-paint.sh \
	tests/bench/bench-netns.sh tests/bench/bench-jobfile.sh tests/bench/bench-dynalloc.sh \
	tests/bench/bench-locality.sh tests/bench/bench-persist.sh \
	tests/bench/bench-broadcast.sh \
	tests/bench/benchlib.sh \
	tests/bench/test-bench-smoke.sh

if SANITIZERS
BENCH_SANITIZED = 1
else
BENCH_SANITIZED = 0
endif

# `make bench BENCH_ARGS=--quick` for a short smoke run; see run-bench.sh.
bench: $(BENCH_PROGS) tests/bench/libbenchtasks.so hearth-submit \
		hearth-driver hearth-executor hearth-master hearth-worker \
		hearth-keygen hearth-history tests/integration/flood \
		tests/integration/test-app
	HEARTH_BIN_DIR='$(abs_top_builddir)' \
	HEARTH_BENCH_DIR='$(abs_top_builddir)/tests/bench' \
	HEARTH_BENCH_SANITIZED=$(BENCH_SANITIZED) \
		$(SHELL) $(srcdir)/tests/bench/run-bench.sh $(BENCH_ARGS)
.PHONY: bench

# Benchmark 30, resumable applications (issue 39): a hand-started
# cluster, drivers killed with kill -9 and resumed.
EXTRA_DIST += tests/bench/bench-resume.sh

# A thousand applications on one master (issue 19, benchmark 26).
EXTRA_DIST += tests/bench/bench-apps.sh

# The failover-time benchmark (bench-failover.sh, issue 17): its probe
# signals the leader and times the first REGISTER_APPLICATION accepted.
check_PROGRAMS += tests/bench/bench-haprobe
tests_bench_bench_haprobe_SOURCES = tests/bench/bench_haprobe.c \
	tests/bench/benchutil.h tests/bench/benchcookie.h
tests_bench_bench_haprobe_LDADD = $(CORE_LIBS)
bench: tests/bench/bench-haprobe hearth-tail tests/integration/shuffle-tool
EXTRA_DIST += tests/bench/bench-failover.sh

# Benchmark 22's parse and check alone, in one process (bench-jobfile.sh).
BENCH_PROGS += tests/bench/bench-jobparse
tests_bench_bench_jobparse_SOURCES = tests/bench/bench_jobparse.c \
	tests/bench/benchutil.h
tests_bench_bench_jobparse_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_bench_bench_jobparse_LDADD = $(JOBFILE_LIBS)
