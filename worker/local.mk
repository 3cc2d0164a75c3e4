# hearth-worker: one per node, runs the executors the master launches.
bin_PROGRAMS += hearth-worker
hearth_worker_SOURCES = \
	worker/worker.h worker/main.c worker/link.c worker/decom.h worker/decom.c \
	worker/devices.c worker/devices.h \
	worker/execs.c worker/execs.h worker/orphans.c worker/orphans.h \
	worker/apps.c worker/apps.h \
	worker/runas.c worker/runas.h worker/userfs.c worker/userfs.h \
	worker/childenv.c worker/childenv.h \
	worker/drivers.c worker/drivers.h worker/drvdir.c worker/drvdir.h \
	worker/relaunch.c worker/relaunch.h \
	worker/children.c worker/children.h \
	worker/childgroups.c worker/childgroups.h \
	worker/cgroup.c worker/cgroup.h worker/cgroup_impl.h \
	worker/cgroup_v1.c worker/cgroup_v2.c worker/cgroupfs.c \
	worker/cleanups.c worker/cleanups.h \
	worker/shuffle.c worker/shuffle.h \
	worker/persisted.c worker/persisted.h \
	worker/shipserve.c worker/shipserve.h \
	worker/web.c worker/web.h worker/webjson.c worker/webjson.h worker/weblog.c worker/weblog.h \
	worker/webstate.c worker/webstate.h worker/webmetrics.c
hearth_worker_LDADD = $(WEB_LIBS) $(NOTIFY_LIBS) $(CORE_LIBS)
