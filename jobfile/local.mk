# jobfile/: job files (libjobfile) and hearth-driver, its main.
# A job file's reading, checking and run (jobrun.h): hearth-driver is
# only its main; hearth-submit runs it in its own process.  The simple
# tasks of a job file are read without the JSON parser (jobfast.h), its
# raw control characters escaped for a second read (jobescape.h).
noinst_LTLIBRARIES += jobfile/libjobfile.la
jobfile_libjobfile_la_SOURCES = jobfile/jobrun.c jobfile/jobrun.h \
	jobfile/jobfile.c jobfile/jobfile.h \
	jobfile/jobcheck.c jobfile/jobcheck.h jobfile/joblist.c jobfile/joblist.h \
	jobfile/jobouts.c jobfile/jobfile_int.h \
	jobfile/jobparams.c jobfile/jobparams.h jobfile/jobenv.c \
	jobfile/jobnames.c jobfile/jobnames.h jobfile/jobshuffle.c jobfile/jobshuffle.h \
	jobfile/jobcross.c jobfile/jobcross.h \
	jobfile/jobstream.c jobfile/jobstream.h jobfile/jobstore.c jobfile/jobstore.h \
	jobfile/progress.c jobfile/progress.h \
	jobfile/jobfast.c jobfile/jobfast.h jobfile/jobescape.c jobfile/jobescape.h
jobfile_libjobfile_la_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
JOBFILE_LIBS = jobfile/libjobfile.la libhearth/libdriver.la $(CORE_LIBS) \
	$(YAJL_LIBS) -lpthread

bin_PROGRAMS += hearth-driver
hearth_driver_SOURCES = jobfile/hearth_driver.c
hearth_driver_LDADD = $(JOBFILE_LIBS)

