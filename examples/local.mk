# Examples: the pi estimate (function tasks in libpi.so, as a JSON job and
# as a C driver program) and a word count (command tasks).
#
# libpi.so is built with a plain rule, not libtool, and never with the
# sanitizers: it is a plug-in that any build of hearth-executor can load.
CLEANFILES += examples/libpi.so
examples/libpi.so: $(srcdir)/examples/pi_tasks.c $(srcdir)/libhearth/hearth.h
	$(AM_V_CC)mkdir -p examples && \
	$(CC) $(WARN_CFLAGS) -O2 -fPIC -shared -I$(srcdir)/libhearth \
		-o $@ $(srcdir)/examples/pi_tasks.c

noinst_PROGRAMS += examples/pi-driver
examples_pi_driver_SOURCES = examples/pi_driver.c
examples_pi_driver_CPPFLAGS = -I$(top_srcdir)/libhearth
examples_pi_driver_LDADD = libhearth.la

# Installed together, so that pi.json's "lib": "libpi.so" finds it.
examplesdir = $(pkgdatadir)/examples
dist_examples_DATA = examples/pi.json examples/wordcount.json \
	examples/wordcount-partitioned.json \
	examples/pi_tasks.c examples/pi_driver.c
nodist_examples_DATA = examples/libpi.so
exampledatadir = $(pkgdatadir)/examples/data
dist_exampledata_DATA = examples/data/hearth.txt examples/data/fire.txt \
	examples/data/cluster.txt
