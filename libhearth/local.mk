# libhearth/: libhearth, the driver API (hearth.h) and the engine behind it.
# The library's code is built once as a convenience library, linked into the
# installed shared library and, statically, into hearth-driver.
noinst_LTLIBRARIES += libhearth/libdriver.la
libhearth_libdriver_la_SOURCES = \
	libhearth/hearth.h libhearth/internal.h \
	libhearth/opts.c libhearth/jobs.c libhearth/ctx.c libhearth/apiq.c libhearth/apiq.h libhearth/render.c \
	libhearth/libfns.c libhearth/libfns.h libhearth/elflib.c libhearth/elflib.h \
	libhearth/tasklimits.c libhearth/tasklimits.h \
	libhearth/engine.c libhearth/engine.h libhearth/work.c libhearth/work.h \
	libhearth/worksubmit.c libhearth/work_int.h \
	libhearth/execdecom.c libhearth/execdecom.h \
	libhearth/eventlog.c libhearth/eventlog.h libhearth/evapp.c \
	libhearth/evtask.c libhearth/evtask.h libhearth/evexec.c libhearth/evexec.h \
	libhearth/evfile.c libhearth/evfile.h libhearth/evfmt.c libhearth/evfmt.h \
	libhearth/evrec.c libhearth/evrec.h \
	libhearth/execs.c libhearth/execs.h libhearth/execs_int.h libhearth/execs_send.c \
	libhearth/execs_worker.c libhearth/execs_cached.c \
	libhearth/execres.c libhearth/execres.h \
	libhearth/execsock.c libhearth/execsock.h libhearth/batches.c libhearth/batches.h \
	libhearth/launch.c libhearth/launch.h \
	libhearth/ship.c libhearth/ship.h libhearth/signals.c libhearth/signals.h \
	libhearth/shipspread.c libhearth/shipspread.h \
	libhearth/master.c libhearth/master.h libhearth/master_msgs.c libhearth/master_msgs.h \
	libhearth/master_execs.c libhearth/master_int.h \
	libhearth/progress_report.c libhearth/progress_report.h \
	libhearth/tlfeed.c libhearth/tlfeed.h \
	libhearth/starved.c libhearth/starved.h \
	libhearth/local.c libhearth/local.h libhearth/localmaster.c \
	libhearth/shuffle.c libhearth/shuffle.h libhearth/shufservers.c \
	libhearth/reduceplace.c libhearth/reduceplace.h \
	libhearth/inlineout.c libhearth/inlineout.h \
	libhearth/persist.c libhearth/persist.h \
	libhearth/fingerprint.c libhearth/fingerprint.h \
	libhearth/record.c libhearth/record.h libhearth/resume.c libhearth/resume.h \
	libhearth/master_resume.c \
	libhearth/dynalloc.c libhearth/dynalloc.h libhearth/dynalloc_opts.c libhearth/dynalloc_opts.h \
	libhearth/dynalloc_sched.c libhearth/dynalloc_sched.h \
	libhearth/clusterup.c libhearth/clusterup.h
libhearth_libdriver_la_CFLAGS = $(AM_CFLAGS) $(ELF_CFLAGS)
# libelf is opened at run time (libhearth/elflib.h): its headers only
libhearth_libdriver_la_LIBADD = libcore/libhearthcore.la -ldl

lib_LTLIBRARIES += libhearth.la
libhearth_la_SOURCES =
libhearth_la_LIBADD = libhearth/libdriver.la $(CZMQ_LIBS) $(ZMQ_LIBS) $(CJSON_LIBS) \
	$(SODIUM_LIBS)
# Only the API of hearth.h: libcore (linked in) stays private.
libhearth_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 -export-symbols-regex '^hearth_((ctx|job|stage|opts)_|broadcast_file$$)'
include_HEADERS += libhearth/hearth.h


# libtool installs libhearth.so.0 but leaves the dynamic linker's cache
# stale: refresh it where the linker searches libdir, else say what a
# program linked with it needs (scripts/install-ldconfig).
install-exec-hook:
	@$(SHELL) $(srcdir)/scripts/install-ldconfig '$(DESTDIR)' '$(libdir)'

