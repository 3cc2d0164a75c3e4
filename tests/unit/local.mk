# Unit tests: one cmocka program per libcore module.
UNIT_TESTS =
TESTS += $(UNIT_TESTS)
check_PROGRAMS += $(UNIT_TESTS)
unit_libs = $(CORE_LIBS) $(CMOCKA_LIBS)
unit_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

UNIT_TESTS += tests/unit/test_alloc
tests_unit_test_alloc_SOURCES = tests/unit/test_alloc.c
tests_unit_test_alloc_CFLAGS = $(unit_cflags)
tests_unit_test_alloc_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_alloc_res
tests_unit_test_alloc_res_SOURCES = tests/unit/test_alloc_res.c
tests_unit_test_alloc_res_CFLAGS = $(unit_cflags)
tests_unit_test_alloc_res_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_alloc_target
tests_unit_test_alloc_target_SOURCES = tests/unit/test_alloc_target.c
tests_unit_test_alloc_target_CFLAGS = $(unit_cflags)
tests_unit_test_alloc_target_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_alloc_ref
tests_unit_test_alloc_ref_SOURCES = tests/unit/test_alloc_ref.c
tests_unit_test_alloc_ref_CFLAGS = $(unit_cflags)
tests_unit_test_alloc_ref_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_allocwhy
tests_unit_test_allocwhy_SOURCES = tests/unit/test_allocwhy.c
tests_unit_test_allocwhy_CFLAGS = $(unit_cflags)
tests_unit_test_allocwhy_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_liveness
tests_unit_test_liveness_SOURCES = tests/unit/test_liveness.c
tests_unit_test_liveness_CFLAGS = $(unit_cflags)
tests_unit_test_liveness_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_dispatch
tests_unit_test_dispatch_SOURCES = tests/unit/test_dispatch.c
tests_unit_test_dispatch_CFLAGS = $(unit_cflags)
tests_unit_test_dispatch_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_labels
tests_unit_test_labels_SOURCES = tests/unit/test_labels.c tests/unit/testutil.h
tests_unit_test_labels_CFLAGS = $(unit_cflags)
tests_unit_test_labels_LDADD = $(unit_libs)
UNIT_TESTS += tests/unit/test_dltable
tests_unit_test_dltable_SOURCES = tests/unit/test_dltable.c tests/unit/testutil.h
tests_unit_test_dltable_CFLAGS = $(unit_cflags)
tests_unit_test_dltable_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_loglimit
tests_unit_test_loglimit_SOURCES = tests/unit/test_loglimit.c tests/unit/testutil.h
tests_unit_test_loglimit_CFLAGS = $(unit_cflags)
tests_unit_test_loglimit_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_masters
tests_unit_test_masters_SOURCES = tests/unit/test_masters.c tests/unit/testutil.h
tests_unit_test_masters_CFLAGS = $(unit_cflags)
tests_unit_test_masters_LDADD = $(unit_libs)
UNIT_TESTS += tests/unit/test_uplink
tests_unit_test_uplink_SOURCES = tests/unit/test_uplink.c tests/unit/testutil.h
tests_unit_test_uplink_CFLAGS = $(unit_cflags)
tests_unit_test_uplink_LDADD = $(unit_libs)

# The election's ACLs and credentials file (libcore/zkacl.c, in the
# ZooKeeper library).
UNIT_TESTS += tests/unit/test_zkacl
tests_unit_test_zkacl_SOURCES = tests/unit/test_zkacl.c tests/unit/testutil.h
tests_unit_test_zkacl_CFLAGS = $(unit_cflags) -DTHREADED
tests_unit_test_zkacl_LDADD = $(ZK_ALL_LIBS) $(unit_libs)

# Whose the cluster's directory is (libcore/zkowner.c, zkident.c): the
# masters' digest identity, and the others an ACL names.
UNIT_TESTS += tests/unit/test_zkowner
tests_unit_test_zkowner_SOURCES = tests/unit/test_zkowner.c tests/unit/testutil.h
tests_unit_test_zkowner_CFLAGS = $(unit_cflags) -DTHREADED
tests_unit_test_zkowner_LDADD = $(ZK_ALL_LIBS) $(unit_libs)

UNIT_TESTS += tests/unit/test_proto
tests_unit_test_proto_SOURCES = tests/unit/test_proto.c tests/unit/testutil.h \
	tests/unit/proto_samples.c tests/unit/proto_samples.h
tests_unit_test_proto_CFLAGS = $(unit_cflags)
tests_unit_test_proto_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_proto_reject
tests_unit_test_proto_reject_SOURCES = tests/unit/test_proto_reject.c \
	tests/unit/testutil.h tests/unit/proto_samples.c \
	tests/unit/proto_samples.h
tests_unit_test_proto_reject_CFLAGS = $(unit_cflags)
tests_unit_test_proto_reject_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_proto_refused
tests_unit_test_proto_refused_SOURCES = tests/unit/test_proto_refused.c \
	tests/unit/testutil.h tests/unit/proto_samples.c \
	tests/unit/proto_samples.h
tests_unit_test_proto_refused_CFLAGS = $(unit_cflags)
tests_unit_test_proto_refused_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_schema
tests_unit_test_schema_SOURCES = tests/unit/test_schema.c tests/unit/testutil.h
tests_unit_test_schema_CFLAGS = $(unit_cflags)
tests_unit_test_schema_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_ctlchars
tests_unit_test_ctlchars_SOURCES = tests/unit/test_ctlchars.c tests/unit/testutil.h
tests_unit_test_ctlchars_CFLAGS = $(unit_cflags)
tests_unit_test_ctlchars_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_ids
tests_unit_test_ids_SOURCES = tests/unit/test_ids.c tests/unit/testutil.h
tests_unit_test_ids_CFLAGS = $(unit_cflags)
tests_unit_test_ids_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_units
tests_unit_test_units_SOURCES = tests/unit/test_units.c tests/unit/testutil.h
tests_unit_test_units_CFLAGS = $(unit_cflags)
tests_unit_test_units_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_resources
tests_unit_test_resources_SOURCES = tests/unit/test_resources.c tests/unit/testutil.h
tests_unit_test_resources_CFLAGS = $(unit_cflags)
tests_unit_test_resources_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_error
tests_unit_test_error_SOURCES = tests/unit/test_error.c tests/unit/testutil.h
tests_unit_test_error_CFLAGS = $(unit_cflags)
tests_unit_test_error_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_conf
tests_unit_test_conf_SOURCES = tests/unit/test_conf.c tests/unit/testutil.h \
	tests/unit/conf_testing.c tests/unit/conf_testing.h
tests_unit_test_conf_CFLAGS = $(unit_cflags)
tests_unit_test_conf_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_conf_flags
tests_unit_test_conf_flags_SOURCES = tests/unit/test_conf_flags.c \
	tests/unit/testutil.h tests/unit/conf_testing.c \
	tests/unit/conf_testing.h
tests_unit_test_conf_flags_CFLAGS = $(unit_cflags)
tests_unit_test_conf_flags_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_spawn
tests_unit_test_spawn_SOURCES = tests/unit/test_spawn.c tests/unit/testutil.h
tests_unit_test_spawn_CFLAGS = $(unit_cflags)
tests_unit_test_spawn_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_spawn_cgroup
tests_unit_test_spawn_cgroup_SOURCES = tests/unit/test_spawn_cgroup.c \
	tests/lib/scratchcg.h \
	tests/unit/testutil.h
tests_unit_test_spawn_cgroup_CFLAGS = $(unit_cflags)
tests_unit_test_spawn_cgroup_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_log
tests_unit_test_log_SOURCES = tests/unit/test_log.c tests/unit/testutil.h
tests_unit_test_log_CFLAGS = $(unit_cflags)
tests_unit_test_log_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_sock
tests_unit_test_sock_SOURCES = tests/unit/test_sock.c tests/unit/testutil.h
tests_unit_test_sock_CFLAGS = $(unit_cflags)
tests_unit_test_sock_LDADD = $(unit_libs)

# The written spec is read from the source tree.
UNIT_TESTS += tests/unit/test_spec
tests_unit_test_spec_SOURCES = tests/unit/test_spec.c tests/unit/testutil.h
tests_unit_test_spec_CPPFLAGS = $(AM_CPPFLAGS) \
	-DHEARTH_TEST_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_spec_CFLAGS = $(unit_cflags)
tests_unit_test_spec_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_taskset
tests_unit_test_taskset_SOURCES = tests/unit/test_taskset.c
tests_unit_test_taskset_CFLAGS = $(unit_cflags)
tests_unit_test_taskset_LDADD = $(unit_libs)
UNIT_TESTS += tests/unit/test_taskset_lost
tests_unit_test_taskset_lost_SOURCES = tests/unit/test_taskset_lost.c
tests_unit_test_taskset_lost_CFLAGS = $(unit_cflags)
tests_unit_test_taskset_lost_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_taskset_held
tests_unit_test_taskset_held_SOURCES = tests/unit/test_taskset_held.c
tests_unit_test_taskset_held_CFLAGS = $(unit_cflags)
tests_unit_test_taskset_held_LDADD = $(unit_libs)
UNIT_TESTS += tests/unit/test_jobstream
tests_unit_test_jobstream_SOURCES = tests/unit/test_jobstream.c \
	jobfile/jobstream.c jobfile/jobstore.c
tests_unit_test_jobstream_CFLAGS = $(unit_cflags) $(YAJL_CFLAGS)
tests_unit_test_jobstream_LDADD = $(unit_libs) $(YAJL_LIBS)
UNIT_TESTS += tests/unit/test_taskset_retire
tests_unit_test_taskset_retire_SOURCES = tests/unit/test_taskset_retire.c
tests_unit_test_taskset_retire_CFLAGS = $(unit_cflags)
tests_unit_test_taskset_retire_LDADD = $(unit_libs)
UNIT_TESTS += tests/unit/test_taskset_move
tests_unit_test_taskset_move_SOURCES = tests/unit/test_taskset_move.c
tests_unit_test_taskset_move_CFLAGS = $(unit_cflags)
tests_unit_test_taskset_move_LDADD = $(unit_libs)
UNIT_TESTS += tests/unit/test_taskset_locality
tests_unit_test_taskset_locality_SOURCES = tests/unit/test_taskset_locality.c
tests_unit_test_taskset_locality_CFLAGS = $(unit_cflags)
tests_unit_test_taskset_locality_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_taskset_res
tests_unit_test_taskset_res_SOURCES = tests/unit/test_taskset_res.c
tests_unit_test_taskset_res_CFLAGS = $(unit_cflags)
tests_unit_test_taskset_res_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_pidfile
tests_unit_test_pidfile_SOURCES = tests/unit/test_pidfile.c tests/unit/testutil.h
tests_unit_test_pidfile_CFLAGS = $(unit_cflags)
tests_unit_test_pidfile_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_safefile
tests_unit_test_safefile_SOURCES = tests/unit/test_safefile.c tests/unit/testutil.h
tests_unit_test_safefile_CFLAGS = $(unit_cflags)
tests_unit_test_safefile_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_keys
tests_unit_test_keys_SOURCES = tests/unit/test_keys.c tests/unit/testutil.h
tests_unit_test_keys_CFLAGS = $(unit_cflags)
tests_unit_test_keys_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_connwatch
tests_unit_test_connwatch_SOURCES = tests/unit/test_connwatch.c \
	tests/unit/testutil.h
tests_unit_test_connwatch_CFLAGS = $(unit_cflags)
tests_unit_test_connwatch_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_curve
tests_unit_test_curve_SOURCES = tests/unit/test_curve.c tests/unit/testutil.h
tests_unit_test_curve_CFLAGS = $(unit_cflags)
tests_unit_test_curve_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_cookie
tests_unit_test_cookie_SOURCES = tests/unit/test_cookie.c tests/unit/testutil.h
tests_unit_test_cookie_CFLAGS = $(unit_cflags)
tests_unit_test_cookie_LDADD = $(unit_libs)

# The master's journal: its pure record codec and replay, and its files.
UNIT_TESTS += tests/unit/test_journal
tests_unit_test_journal_SOURCES = tests/unit/test_journal.c \
	tests/unit/testutil.h tests/unit/journaltest.h
tests_unit_test_journal_CFLAGS = $(unit_cflags)
tests_unit_test_journal_LDADD = master/libregistry.la $(unit_libs)
UNIT_TESTS += tests/unit/test_journal_files
tests_unit_test_journal_files_SOURCES = tests/unit/test_journal_files.c \
	tests/unit/testutil.h tests/unit/journaltest.h master/journal.c \
	master/journal.h master/jio.c master/jio.h
tests_unit_test_journal_files_CFLAGS = $(unit_cflags)
tests_unit_test_journal_files_LDADD = master/libregistry.la $(unit_libs)

# The registry and its journal: records of every change, replay, restore
# (master/libregistry.la, linked by the tests of them).
registry_sources = tests/unit/testutil.h
registry_libs = master/libregistry.la $(unit_libs)

UNIT_TESTS += tests/unit/test_restore
tests_unit_test_restore_SOURCES = tests/unit/test_restore.c \
	$(registry_sources)
tests_unit_test_restore_CFLAGS = $(unit_cflags)
tests_unit_test_restore_LDADD = $(registry_libs)

UNIT_TESTS += tests/unit/test_notify
tests_unit_test_notify_SOURCES = tests/unit/test_notify.c tests/unit/testutil.h
tests_unit_test_notify_CFLAGS = $(unit_cflags)
tests_unit_test_notify_LDADD = $(NOTIFY_LIBS) $(unit_libs)

UNIT_TESTS += tests/unit/test_regworkers
tests_unit_test_regworkers_SOURCES = tests/unit/test_regworkers.c \
	$(registry_sources)
tests_unit_test_regworkers_CFLAGS = $(unit_cflags)
tests_unit_test_regworkers_LDADD = $(registry_libs)

UNIT_TESTS += tests/unit/test_outputs
tests_unit_test_outputs_SOURCES = tests/unit/test_outputs.c \
	$(registry_sources)
tests_unit_test_outputs_CFLAGS = $(unit_cflags)
tests_unit_test_outputs_LDADD = $(registry_libs)

UNIT_TESTS += tests/unit/test_regended
tests_unit_test_regended_SOURCES = tests/unit/test_regended.c \
	$(registry_sources)
tests_unit_test_regended_CFLAGS = $(unit_cflags)
tests_unit_test_regended_LDADD = $(registry_libs)

UNIT_TESTS += tests/unit/test_regreport
tests_unit_test_regreport_SOURCES = tests/unit/test_regreport.c \
	$(registry_sources)
tests_unit_test_regreport_CFLAGS = $(unit_cflags)
tests_unit_test_regreport_LDADD = $(registry_libs)

UNIT_TESTS += tests/unit/test_regres
tests_unit_test_regres_SOURCES = tests/unit/test_regres.c \
	$(registry_sources)
tests_unit_test_regres_CFLAGS = $(unit_cflags)
tests_unit_test_regres_LDADD = $(registry_libs)

UNIT_TESTS += tests/unit/test_packed
tests_unit_test_packed_SOURCES = tests/unit/test_packed.c tests/unit/testutil.h
tests_unit_test_packed_CFLAGS = $(unit_cflags)
tests_unit_test_packed_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_jsonprint
tests_unit_test_jsonprint_SOURCES = tests/unit/test_jsonprint.c tests/unit/testutil.h
tests_unit_test_jsonprint_CFLAGS = $(unit_cflags)
tests_unit_test_jsonprint_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_crc32c
tests_unit_test_crc32c_SOURCES = tests/unit/test_crc32c.c
tests_unit_test_crc32c_CFLAGS = $(unit_cflags)
tests_unit_test_crc32c_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_partition
tests_unit_test_partition_SOURCES = tests/unit/test_partition.c
tests_unit_test_partition_CFLAGS = $(unit_cflags)
tests_unit_test_partition_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_wnames
tests_unit_test_wnames_SOURCES = tests/unit/test_wnames.c
tests_unit_test_wnames_CFLAGS = $(unit_cflags)
tests_unit_test_wnames_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_stateview
tests_unit_test_stateview_SOURCES = tests/unit/test_stateview.c \
	tests/unit/testutil.h
tests_unit_test_stateview_CFLAGS = $(unit_cflags)
tests_unit_test_stateview_LDADD = $(unit_libs)

# Not libcore's: the executor's store of shipped files, alone.
UNIT_TESTS += tests/unit/test_exec_files
tests_unit_test_exec_files_SOURCES = tests/unit/test_exec_files.c \
	tests/unit/testutil.h executor/files.c executor/files.h \
	executor/shipcache.c executor/shipcache.h
tests_unit_test_exec_files_CFLAGS = $(unit_cflags)
tests_unit_test_exec_files_LDADD = $(unit_libs)

# The manifest of an output directory (libcore/manifest.c).
UNIT_TESTS += tests/unit/test_manifest
tests_unit_test_manifest_SOURCES = tests/unit/test_manifest.c \
	tests/unit/testutil.h
tests_unit_test_manifest_CFLAGS = $(unit_cflags)
tests_unit_test_manifest_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_driver_shuffle
tests_unit_test_driver_shuffle_SOURCES = tests/unit/test_driver_shuffle.c \
	tests/unit/shuffle_fixture.h \
	libhearth/shuffle.c libhearth/shuffle.h libhearth/shufservers.c \
	libhearth/inlineout.c libhearth/inlineout.h
tests_unit_test_driver_shuffle_CFLAGS = $(unit_cflags)
tests_unit_test_driver_shuffle_LDADD = $(unit_libs)

# Small outputs read whole kept by the driver (libhearth/inlineout.c).
UNIT_TESTS += tests/unit/test_inlineout
tests_unit_test_inlineout_SOURCES = tests/unit/test_inlineout.c \
	tests/unit/shuffle_fixture.h \
	libhearth/shuffle.c libhearth/shuffle.h libhearth/shufservers.c \
	libhearth/inlineout.c libhearth/inlineout.h
tests_unit_test_inlineout_CFLAGS = $(unit_cflags)
tests_unit_test_inlineout_LDADD = $(unit_libs)

# A reduce task's input over map outputs of this node (executor/reducein.c).
UNIT_TESTS += tests/unit/test_reducein
tests_unit_test_reducein_SOURCES = tests/unit/test_reducein.c \
	tests/unit/testutil.h executor/reducein.c executor/reducein.h \
	executor/fetch.c executor/fetch.h executor/partcache.c executor/partcache.h
tests_unit_test_reducein_CFLAGS = $(unit_cflags)
tests_unit_test_reducein_LDADD = $(unit_libs)

# Reduce inputs kept in an executor's memory (executor/partcache.c).
UNIT_TESTS += tests/unit/test_partcache
tests_unit_test_partcache_SOURCES = tests/unit/test_partcache.c \
	executor/partcache.c executor/partcache.h
tests_unit_test_partcache_CFLAGS = $(unit_cflags)
tests_unit_test_partcache_LDADD = $(unit_libs)

# A reduce task's blocks sent by the driver: joined where the stream
# cannot change, apart otherwise.
UNIT_TESTS += tests/unit/test_fetch_inline
tests_unit_test_fetch_inline_SOURCES = tests/unit/test_fetch_inline.c \
	tests/unit/testutil.h executor/fetch.c executor/fetch.h
tests_unit_test_fetch_inline_CFLAGS = $(unit_cflags)
tests_unit_test_fetch_inline_LDADD = $(unit_libs)

# A driver's progress summary: the codec's bounds, the driver's cut of a
# stage's name, the master's record of it.
# The API's queue of commands to the driver's engine.
UNIT_TESTS += tests/unit/test_apiq
tests_unit_test_apiq_SOURCES = tests/unit/test_apiq.c \
	libhearth/apiq.c libhearth/apiq.h
tests_unit_test_apiq_CFLAGS = $(unit_cflags)
tests_unit_test_apiq_LDADD = $(unit_libs) -lpthread

UNIT_TESTS += tests/unit/test_progress
tests_unit_test_progress_SOURCES = tests/unit/test_progress.c \
	$(registry_sources)
tests_unit_test_progress_CFLAGS = $(unit_cflags)
tests_unit_test_progress_LDADD = libhearth/libdriver.la $(registry_libs)
# The live timeline: the driver's feed, the codec's bounds, the master's
# store and its record in the registry.
UNIT_TESTS += tests/unit/test_livetimeline
tests_unit_test_livetimeline_SOURCES = tests/unit/test_livetimeline.c \
	$(registry_sources)
tests_unit_test_livetimeline_CFLAGS = $(unit_cflags)
tests_unit_test_livetimeline_LDADD = libhearth/libdriver.la $(registry_libs)
# The Prometheus text and the web token's comparison (libhearthweb).
UNIT_TESTS += tests/unit/test_prom
tests_unit_test_prom_SOURCES = tests/unit/test_prom.c tests/unit/testutil.h
tests_unit_test_prom_CFLAGS = $(unit_cflags)
tests_unit_test_prom_LDADD = $(WEB_LIBS) $(unit_libs)
UNIT_TESTS += tests/unit/test_webauth
tests_unit_test_webauth_SOURCES = tests/unit/test_webauth.c tests/unit/testutil.h
tests_unit_test_webauth_CFLAGS = $(unit_cflags)
tests_unit_test_webauth_LDADD = $(unit_libs)
UNIT_TESTS += tests/unit/test_webform
tests_unit_test_webform_SOURCES = tests/unit/test_webform.c tests/unit/testutil.h
tests_unit_test_webform_CFLAGS = $(unit_cflags)
tests_unit_test_webform_LDADD = $(unit_libs)
UNIT_TESTS += tests/unit/test_webpage
tests_unit_test_webpage_SOURCES = tests/unit/test_webpage.c tests/unit/testutil.h
tests_unit_test_webpage_CFLAGS = $(unit_cflags)
tests_unit_test_webpage_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_fstree
tests_unit_test_fstree_SOURCES = tests/unit/test_fstree.c tests/unit/testutil.h
tests_unit_test_fstree_CFLAGS = $(unit_cflags)
tests_unit_test_fstree_LDADD = $(unit_libs)

# Whom the worker runs a child as, and its files in that user's trees.
UNIT_TESTS += tests/unit/test_runas
tests_unit_test_runas_SOURCES = tests/unit/test_runas.c tests/unit/testutil.h \
	worker/runas.c worker/runas.h
tests_unit_test_runas_CFLAGS = $(unit_cflags)
tests_unit_test_runas_LDADD = $(unit_libs)
# the passwd and group databases failing on purpose (test_runas.c)
tests_unit_test_runas_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=getpwnam_r \
	-Wl,--wrap=getgrouplist
# The applications a worker launched: each one's first token stays.
UNIT_TESTS += tests/unit/test_apps
tests_unit_test_apps_SOURCES = tests/unit/test_apps.c tests/unit/testutil.h \
	worker/apps.c worker/apps.h
tests_unit_test_apps_CFLAGS = $(unit_cflags)
tests_unit_test_apps_LDADD = $(unit_libs)
UNIT_TESTS += tests/unit/test_shipserve
tests_unit_test_shipserve_SOURCES = tests/unit/test_shipserve.c \
	tests/unit/testutil.h worker/shipserve.c worker/shipserve.h \
	worker/userfs.c worker/userfs.h
tests_unit_test_shipserve_CFLAGS = $(unit_cflags)
tests_unit_test_shipserve_LDADD = $(unit_libs)
UNIT_TESTS += tests/unit/test_userfs
tests_unit_test_userfs_SOURCES = tests/unit/test_userfs.c tests/unit/testutil.h \
	worker/userfs.c worker/userfs.h
tests_unit_test_userfs_CFLAGS = $(unit_cflags)
tests_unit_test_userfs_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_cgroup
tests_unit_test_cgroup_SOURCES = tests/unit/test_cgroup.c tests/unit/testutil.h \
	worker/cgroup.c worker/cgroup.h worker/cgroup_impl.h \
	worker/cgroup_v1.c worker/cgroup_v2.c worker/cgroupfs.c
tests_unit_test_cgroup_CFLAGS = $(unit_cflags)
tests_unit_test_cgroup_LDADD = $(unit_libs)

# The event log's task records and their lines, against the formatter
# they replaced (libhearth/evrec.c), and the log that carries them.
UNIT_TESTS += tests/unit/test_evrec
tests_unit_test_evrec_SOURCES = tests/unit/test_evrec.c tests/unit/testutil.h \
	libhearth/evrec.c libhearth/evrec.h libhearth/evfmt.c libhearth/evfmt.h \
	libhearth/evfile.c libhearth/evfile.h \
	libhearth/eventlog.c libhearth/eventlog.h libhearth/evtask.c libhearth/evtask.h
# (the event log's file creation goes through the test's stand-in, which
# opens the FIFO of test_writer_behind: see test_evrec.c)
tests_unit_test_evrec_CFLAGS = $(unit_cflags) \
	-Dhearth_file_create=test_evrec_file_create
tests_unit_test_evrec_LDADD = $(unit_libs) -lpthread

# Dynamic allocation's schedule (libhearth/dynalloc_sched.c) and what the
# task set's runnable stages want (libcore/taskset_demand.c).
UNIT_TESTS += tests/unit/test_dynalloc
tests_unit_test_dynalloc_SOURCES = tests/unit/test_dynalloc.c \
	libhearth/dynalloc_sched.c libhearth/dynalloc_sched.h
tests_unit_test_dynalloc_CFLAGS = $(unit_cflags)
tests_unit_test_dynalloc_LDADD = $(unit_libs)
tests_unit_test_jobstream_SOURCES += jobfile/jobfast.c jobfile/jobescape.c

# A worker's view printed from its record (MASTER_STATE's answer)
# against the JSON tree it stands for.
UNIT_TESTS += tests/unit/test_regprint
tests_unit_test_regprint_SOURCES = tests/unit/test_regprint.c \
	$(registry_sources)
tests_unit_test_regprint_CFLAGS = $(unit_cflags)
tests_unit_test_regprint_LDADD = $(registry_libs)

# The task path's reactor (libcore/loop.c): timers, descriptors, readers
# drained without waiting, and the message a send made ready.
UNIT_TESTS += tests/unit/test_loop
# loop.c compiled in with timer ids that wrap after 16, to test the wrap
tests_unit_test_loop_SOURCES = tests/unit/test_loop.c tests/unit/testutil.h \
	libcore/loop.c libcore/loop.h
tests_unit_test_loop_CPPFLAGS = $(AM_CPPFLAGS) -DHEARTH_LOOP_MAX_TIMER_ID=16
tests_unit_test_loop_CFLAGS = $(unit_cflags)
tests_unit_test_loop_LDADD = $(unit_libs)

# The loop's children (libcore/loop_child.c), on real child processes.
UNIT_TESTS += tests/unit/test_loop_child
tests_unit_test_loop_child_SOURCES = tests/unit/test_loop_child.c \
	tests/unit/testutil.h
tests_unit_test_loop_child_CFLAGS = $(unit_cflags)
tests_unit_test_loop_child_LDADD = $(unit_libs)

# Owned children: a thread waits for its own child through the loop's
# watch (libcore/loop_child.c, the executor's command tasks).
UNIT_TESTS += tests/unit/test_loop_owned
tests_unit_test_loop_owned_SOURCES = tests/unit/test_loop_owned.c \
	tests/unit/testutil.h
tests_unit_test_loop_owned_CFLAGS = $(unit_cflags)
tests_unit_test_loop_owned_LDADD = $(unit_libs)

# The event timeline drawn on the application pages (libcore/timeline.c).
UNIT_TESTS += tests/unit/test_timeline
tests_unit_test_timeline_SOURCES = tests/unit/test_timeline.c tests/unit/testutil.h
tests_unit_test_timeline_CFLAGS = $(unit_cflags)
tests_unit_test_timeline_LDADD = $(unit_libs)

# Job files of several jobs (jobfile/joblist.c, and their load through
# jobfile/jobfile.c).
UNIT_TESTS += tests/unit/test_joblist
tests_unit_test_joblist_SOURCES = tests/unit/test_joblist.c
tests_unit_test_joblist_CFLAGS = $(unit_cflags) $(YAJL_CFLAGS)
tests_unit_test_joblist_LDADD = $(JOBFILE_LIBS) $(CMOCKA_LIBS)

# A worker's persisted map outputs and its --cache-disk (worker/persisted.c).
UNIT_TESTS += tests/unit/test_persisted
tests_unit_test_persisted_SOURCES = tests/unit/test_persisted.c \
	worker/persisted.c worker/persisted.h
tests_unit_test_persisted_CFLAGS = $(unit_cflags)
tests_unit_test_persisted_LDADD = $(unit_libs)
