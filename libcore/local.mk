# libcore: the pure, unit-tested core that every program links.
noinst_LTLIBRARIES += libcore/libhearthcore.la
libcore_libhearthcore_la_SOURCES = \
	libcore/error.c libcore/error.h \
	libcore/log.c libcore/log.h \
	libcore/units.c libcore/units.h \
	libcore/ids.c libcore/ids.h \
	libcore/ctlchars.c libcore/ctlchars.h \
	libcore/schema.c libcore/schema.h \
	libcore/commands.c libcore/cmdrules.c libcore/cmdrules.h \
	libcore/proto.c libcore/proto.h \
	libcore/jsonprint.c libcore/jsonprint.h \
	libcore/packed.c libcore/packed.h \
	libcore/sock.c libcore/sock.h \
	libcore/conf.c libcore/conf.h libcore/conf_int.h libcore/confparse.c \
	libcore/start.c libcore/start.h \
	libcore/spawn.c libcore/spawn.h \
	libcore/pidfile.c libcore/pidfile.h \
	libcore/readyfile.c libcore/readyfile.h \
	libcore/alloc.c libcore/alloc.h \
	libcore/allocwhy.c libcore/allocwhy.h \
	libcore/resources.c libcore/resources.h \
	libcore/clock.h \
	libcore/liveness.c libcore/liveness.h \
	libcore/dispatch.c libcore/dispatch.h \
	libcore/loglimit.c libcore/loglimit.h \
	libcore/masters.c libcore/masters.h \
	libcore/uplink.c libcore/uplink.h \
	libcore/intkeys.c libcore/intkeys.h \
	libcore/dltable.c libcore/dltable.h \
	libcore/labels.c libcore/labels.h \
	libcore/taskset.c libcore/taskset.h libcore/taskset_int.h \
	libcore/taskset_offer.c libcore/taskset_spec.c libcore/taskset_queue.c \
	libcore/taskset_place.c \
	libcore/taskset_lost.c libcore/taskset_res.c libcore/taskset_demand.c \
	libcore/taskset_retire.c libcore/taskset_retire.h \
	libcore/keys.c libcore/keys.h libcore/keymap.c libcore/keymap.h \
	libcore/refusals.c libcore/refusals.h \
	libcore/zap.c libcore/zap.h \
	libcore/cookie.c libcore/cookie.h \
	libcore/webauth.c libcore/webauth.h \
	libcore/webform.c libcore/webform.h \
	libcore/connwatch.c libcore/connwatch.h \
	libcore/loop.c libcore/loop.h libcore/loop_int.h libcore/loop_child.c \
	libcore/curve.c libcore/curve.h \
	libcore/crc32c.c libcore/crc32c.h \
	libcore/filechunk.c libcore/filechunk.h \
	libcore/records.h libcore/shuffleopts.h libcore/partfmt.c libcore/partfmt.h \
	libcore/kmerge.c libcore/kmerge.h \
	libcore/partwriter.c libcore/partwriter.h \
	libcore/partbucket.c libcore/partbucket.h \
	libcore/blockmerge.c libcore/blockmerge.h \
	libcore/fstree.c libcore/fstree.h \
	libcore/safefile.c libcore/safefile.h \
	libcore/manifest.c libcore/manifest.h \
	libcore/wnames.c libcore/wnames.h \
	libcore/stateview.c libcore/stateview.h \
	libcore/webpage.h libcore/webpage_int.h libcore/webpage_html.c \
	libcore/webpage_master.c libcore/webpage_worker.c libcore/webpage_js.c \
	libcore/webpage_kill.c \
	libcore/webpage_history.c \
	libcore/timeline.c libcore/timeline.h libcore/timeline_lanes.c \
	libcore/timeline_live.c libcore/timeline_live.h
libcore_libhearthcore_la_LIBADD = $(CZMQ_LIBS) $(ZMQ_LIBS) $(CJSON_LIBS) \
	$(SODIUM_LIBS) -lm -lpthread

# The daemons' notifications to systemd: a library of its own, linked by
# hearth-master and hearth-worker only, so that libhearth (and the
# programs of users that link it) do not depend on libsystemd.
noinst_LTLIBRARIES += libcore/libhearthnotify.la
libcore_libhearthnotify_la_SOURCES = libcore/notify.c libcore/notify.h
libcore_libhearthnotify_la_CPPFLAGS = $(AM_CPPFLAGS) $(SYSTEMD_CFLAGS)
libcore_libhearthnotify_la_LIBADD = $(SYSTEMD_LIBS)
NOTIFY_LIBS = libcore/libhearthnotify.la $(SYSTEMD_LIBS)

# The daemons' HTTP server (pages, JSON, metrics) on libmicrohttpd: a
# library of its own, linked by the programs that serve pages only.
noinst_LTLIBRARIES += libcore/libhearthweb.la
libcore_libhearthweb_la_SOURCES = libcore/web.c libcore/web.h \
	libcore/web_int.h libcore/webreq.c libcore/webreply.c \
	libcore/mhdlib.c libcore/mhdlib.h \
	libcore/prom.c libcore/prom.h \
	libcore/webprom.c libcore/webprom.h
libcore_libhearthweb_la_CPPFLAGS = $(AM_CPPFLAGS) $(MHD_CFLAGS)
# libmicrohttpd itself is opened at run time (libcore/mhdlib.h)
libcore_libhearthweb_la_LIBADD = -ldl -lm
WEB_LIBS = libcore/libhearthweb.la -ldl

# Leader election through ZooKeeper (standby masters): a library of its
# own, linked only by what elects.
noinst_LTLIBRARIES += libcore/libhearthzk.la
libcore_libhearthzk_la_SOURCES = libcore/zkelect.c libcore/zkelect.h \
	libcore/zkacl.c libcore/zkacl.h \
	libcore/zkowner.c libcore/zkowner.h \
	libcore/zkident.c libcore/zkident.h
libcore_libhearthzk_la_CPPFLAGS = $(AM_CPPFLAGS) -DTHREADED
# zkident.c hashes with czmq's zdigest
libcore_libhearthzk_la_LIBADD = $(ZK_LIBS) $(CZMQ_LIBS)
ZK_ALL_LIBS = libcore/libhearthzk.la $(ZK_LIBS)
