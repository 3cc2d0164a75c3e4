# libhearth (the driver API) and hearth-driver (JSON job files).
# The library's code is built once as a convenience library, linked into the
# installed shared library and, statically, into hearth-driver.
noinst_LTLIBRARIES += driver/libdriver.la
driver_libdriver_la_SOURCES = \
	driver/hearth.h driver/internal.h \
	driver/opts.c driver/jobs.c driver/ctx.c driver/apiq.c driver/apiq.h driver/render.c \
	driver/libfns.c driver/libfns.h driver/elflib.c driver/elflib.h \
	driver/tasklimits.c driver/tasklimits.h \
	driver/engine.c driver/engine.h driver/work.c driver/work.h \
	driver/execdecom.c driver/execdecom.h \
	driver/eventlog.c driver/eventlog.h driver/evapp.c \
	driver/evtask.c driver/evtask.h driver/evexec.c driver/evexec.h \
	driver/evfile.c driver/evfile.h driver/evfmt.c driver/evfmt.h \
	driver/evrec.c driver/evrec.h \
	driver/execs.c driver/execs.h driver/execs_int.h driver/execs_send.c \
	driver/execs_worker.c \
	driver/execres.c driver/execres.h \
	driver/execsock.c driver/execsock.h driver/batches.c driver/batches.h \
	driver/launch.c driver/launch.h \
	driver/ship.c driver/ship.h driver/signals.c driver/signals.h \
	driver/master.c driver/master.h driver/master_msgs.c driver/master_msgs.h \
	driver/master_execs.c driver/master_int.h \
	driver/progress_report.c driver/progress_report.h \
	driver/starved.c driver/starved.h \
	driver/local.c driver/local.h driver/shuffle.c driver/shuffle.h \
	driver/dynalloc.c driver/dynalloc.h driver/dynalloc_opts.c driver/dynalloc_opts.h \
	driver/dynalloc_sched.c driver/dynalloc_sched.h \
	driver/clusterup.c driver/clusterup.h
driver_libdriver_la_CFLAGS = $(AM_CFLAGS) $(ELF_CFLAGS)
# libelf is opened at run time (driver/elflib.h): its headers only
driver_libdriver_la_LIBADD = libcore/libhearthcore.la -ldl

lib_LTLIBRARIES += libhearth.la
libhearth_la_SOURCES =
libhearth_la_LIBADD = driver/libdriver.la $(CZMQ_LIBS) $(ZMQ_LIBS) $(CJSON_LIBS) \
	$(SODIUM_LIBS)
# Only the API of hearth.h: libcore (linked in) stays private.
libhearth_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 -export-symbols-regex '^hearth_(ctx|job|stage|opts)_'
include_HEADERS += driver/hearth.h

# A job file's reading, checking and run (jobrun.h): hearth-driver is
# only its main; hearth-submit runs it in its own process.
noinst_LTLIBRARIES += driver/libjobfile.la
driver_libjobfile_la_SOURCES = driver/jobrun.c driver/jobrun.h \
	driver/jobfile.c driver/jobfile.h \
	driver/jobcheck.c driver/jobcheck.h \
	driver/jobparams.c driver/jobparams.h driver/jobenv.c \
	driver/jobnames.c driver/jobnames.h driver/jobshuffle.c driver/jobshuffle.h \
	driver/jobstream.c driver/jobstream.h driver/jobstore.c driver/jobstore.h \
	driver/progress.c driver/progress.h
driver_libjobfile_la_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
JOBFILE_LIBS = driver/libjobfile.la driver/libdriver.la $(CORE_LIBS) \
	$(YAJL_LIBS) -lpthread

bin_PROGRAMS += hearth-driver
hearth_driver_SOURCES = driver/hearth_driver.c
hearth_driver_LDADD = $(JOBFILE_LIBS)

bin_PROGRAMS += hearth-submit
hearth_submit_SOURCES = driver/submit.c \
	driver/submit_request.c driver/submit_request.h \
	driver/submit_driver.c driver/submit_driver.h \
	driver/submit_admin.c driver/submit_admin.h
hearth_submit_LDADD = $(JOBFILE_LIBS)

# hearth-admin: an operator's commands (list, kill, drain, resume), over
# hearth-submit's link to the master and its kills.
bin_PROGRAMS += hearth-admin
hearth_admin_SOURCES = driver/admin.c driver/admin_web.c driver/admin_web.h \
	driver/submit_request.c driver/submit_request.h \
	driver/submit_admin.c driver/submit_admin.h
hearth_admin_LDADD = $(CORE_LIBS)

# libtool installs libhearth.so.0 but leaves the dynamic linker's cache
# stale: refresh it where the linker searches libdir, else say what a
# program linked with it needs (scripts/install-ldconfig).
install-exec-hook:
	@$(SHELL) $(srcdir)/scripts/install-ldconfig '$(DESTDIR)' '$(libdir)'

# The simple tasks of a job file read without the JSON parser (jobfast.h),
# its raw control characters escaped for a second read (jobescape.h).
driver_libjobfile_la_SOURCES += driver/jobfast.c driver/jobfast.h \
	driver/jobescape.c driver/jobescape.h
