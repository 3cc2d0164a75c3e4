# hearth-master.
bin_PROGRAMS += hearth-master
# The registry and its journal records (pure state, no sockets): built
# once, for hearth-master and the unit tests of them, which compiled these
# eleven files again each (about 70 compiles of every sanitizer build).
noinst_LTLIBRARIES += master/libregistry.la
master_libregistry_la_SOURCES = \
	master/registry.c master/registry.h master/registry_int.h master/regrecords.h \
	master/regworkers.c master/regworkers.h master/regapps.c master/regdrivers.c master/regdrivers.h \
	master/reglive.c master/regviews.c master/regstopping.c master/regres.c \
	master/records.c master/restore.c master/jstate.c master/jstate.h \
	master/outputs.c master/outputs.h master/regresume.c
hearth_master_SOURCES = \
	master/master.h master/main.c master/admit.c master/admit.h \
	master/authz.c master/authz.h master/limits.c master/limits.h \
	master/waiting.c master/waiting.h \
	master/handlers.c master/handlers.h master/workers.c master/workers.h \
	master/claims.c master/claims.h \
	master/cluster.c master/cluster.h master/state.c master/state.h \
	master/send.c master/send.h master/ha.c master/ha.h \
	master/replicate.c master/replicate.h master/follow.c master/follow.h \
	master/drivers.c master/drivers.h master/drvsubmit.c master/drvsubmit.h \
	master/drvkeys.c master/drvkeys.h \
	master/drvlog.c master/drvlog.h master/admin.c master/admin.h \
	master/resume.c master/resume.h \
	master/recover.c master/recover.h master/journal.c master/journal.h \
	master/jfiles.c master/jfiles.h master/jio.c master/jio.h \
	master/web.c master/web.h master/webjson.c master/webmetrics.c \
	master/webkill.c
hearth_master_LDADD = master/libregistry.la $(WEB_LIBS) $(NOTIFY_LIBS) $(ZK_ALL_LIBS) $(CORE_LIBS)
